#!/usr/bin/env bash
# Sets up this checkout (tools/setup.sh) and runs every test: the C++ unit tests and the
# end-to-end CLI tests against an AddressSanitizer + UndefinedBehaviorSanitizer build, the Python
# worker's tests, and the formatting check. The last line is CTest's own summary.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh --no-build
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DADAEXPLORE_SANITIZE=ON \
  -DADAEXPLORE_TEST_PYTHON="$PWD/.venv/bin/python" >/dev/null
cmake --build build-asan
cd build-asan
ctest --output-on-failure -j2 --timeout 1500
