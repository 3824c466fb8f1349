#!/usr/bin/env bash
# The search methods in the simulator fitted to the reference's ten search trees
# (docs/simulation.md): the held-out check of the fit (verdict rates, speed-change quantiles,
# whole searches against the real ones), then every method at 50, 100 and 200 steps with 95%
# intervals, AdaExplore at 4 steps in flight, and each search default moved both ways. CPU only.
#   bench/cpu/search_simulation.sh [OUT_DIR]
# Writes OUT_DIR/search_simulation_fitted.{md,json} (default:
# bench/results/<today>-cpu-search-simulation-fitted).
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${ADAEXPLORE_SHARED:-../shared}
out=${1:-bench/results/$(date +%F)-cpu-search-simulation-fitted}
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DADAEXPLORE_BUILD_TESTS=OFF \
  >/dev/null
cmake --build build-release --target search_simulation >/dev/null
mkdir -p "$out"
build-release/bench/search_simulation --trees "$shared/data/adaexplore-release/showcase" \
  --tasks "${TASKS:-500}" --seeds "${SEEDS:-2}" --steps 200 --in-flight 1,4 --sweep-defaults \
  --json-out "$out/search_simulation_fitted.json" | tee "$out/search_simulation_fitted.md"
