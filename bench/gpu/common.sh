# Sourced by the bench/gpu/*.sh scripts: where things are on the GPU machine, and a step logger.
# Needs tools/device_bundle.sh to have filled .device/ (named in `carry`).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${OUT:-/tmp/adx-out}
mkdir -p "$OUT"
BIN=.device/bin/adaexplore
KK=bench/kernelbench_kernels
KB=.device/kernelbench
export XDG_CACHE_HOME=/tmp/adx-cache PYTHONUNBUFFERED=1
EVAL=("$BIN" eval --python python3 --no-cache --json)
stamp() { echo "[$(date +%T)] $*" | tee -a "$OUT/steps.txt"; }
