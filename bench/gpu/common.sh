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
# The candidate sandbox's filter on an image that may lack it: pyseccomp (and any other wheels
# named) from .device/wheels into /tmp/adx-site, libseccomp.so.2 from .device/lib.
install_sandbox_filter() {
  python3 -m pip install --quiet --no-index --no-deps --target /tmp/adx-site \
    .device/wheels/sandbox/*.whl "$@" >>"$OUT/setup.txt" 2>&1
  export PYTHONPATH=/tmp/adx-site${PYTHONPATH:+:$PYTHONPATH}
  if ! ldconfig -p | grep -q 'libseccomp.so.2 '; then
    cp .device/lib/libseccomp.so.2 /usr/lib/x86_64-linux-gnu/ && ldconfig
    stamp "libseccomp.so.2 was missing: brought from .device/lib"
  fi
}
