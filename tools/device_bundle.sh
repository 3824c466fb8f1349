#!/usr/bin/env bash
# Builds what a run on the GPU machine needs into .device/ (git-ignored; name it in `carry`):
#   .device/bin   adaexplore and the benchmarks, built here with an RPATH of $ORIGIN/../lib
#   .device/lib   the shared libraries they need that the GPU image lacks (never libc or
#                 libstdc++: the worker's Python must keep the image's own)
#   .device/kernelbench/<level>/  the KernelBench task files that bench/kernelbench_kernels uses
# The GPU image has no Debian -dev libraries, so the binaries cannot be built there.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${ADAEXPLORE_SHARED:-../shared}
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DADAEXPLORE_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_RPATH='$ORIGIN/../lib' >/dev/null
cmake --build build-device --target adaexplore eval_throughput eval_repeatability
rm -rf .device/bin .device/lib .device/kernelbench
mkdir -p .device/bin .device/lib
cp build-device/adaexplore build-device/bench/eval_throughput build-device/bench/eval_repeatability \
  .device/bin/
strip .device/bin/*
for lib in $(ldd .device/bin/adaexplore | awk '/=>/ {print $3}'); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*|libpthread*|libdl*|librt*) ;;
    *) cp -L "$lib" .device/lib/ ;;
  esac
done
for dir in bench/kernelbench_kernels/level*/*/; do
  level=$(basename "$(dirname "$dir")")
  task=$(basename "$dir")
  mkdir -p ".device/kernelbench/$level"
  cp "$shared/data/kernelbench/$level/$task.py" ".device/kernelbench/$level/"
done
du -sh .device
