#!/usr/bin/env bash
# Sets up this checkout on a fresh Debian machine, idempotently:
#   1. Debian packages the build needs (only those missing; apt-get needs root or sudo),
#   2. the project's Python environment in .venv (torch, triton, numpy, pytest),
#   3. the release build in build/ (the binary is build/adaexplore); --no-build skips it (the
#      test command builds its own sanitizer build and needs no release binary).
# Run it again any time: each step does nothing when it is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(cmake ninja-build g++ make pkg-config git python3-venv
  libcurl4-openssl-dev nlohmann-json3-dev libsqlite3-dev libcli11-dev libfmt-dev libspdlog-dev
  libtomlplusplus-dev libssl-dev libgtest-dev libgmock-dev clang-format libnats-dev nats-server
  libseccomp2)
if [ "${1:-}" = "--no-build" ]; then
  # The tests open the HTML report in chromium; clang runs the thread-safety analysis.
  APT_PACKAGES+=(chromium-headless-shell clang)
fi

missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PYTHON="${ADAEXPLORE_BOOTSTRAP_PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
stamp=$(cat python/requirements.txt python/requirements-nodeps.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat .venv/.requirements-stamp 2>/dev/null)" != "$stamp" ]; then
  echo "setup: installing Python packages into .venv (torch is large; this takes a few minutes)"
  .venv/bin/python -m pip install -q --disable-pip-version-check -r python/requirements.txt
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps \
    -r python/requirements-nodeps.txt
  echo "$stamp" > .venv/.requirements-stamp
fi

if [ "${1:-}" = "--no-build" ]; then
  exit 0
fi
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DADAEXPLORE_BUILD_TESTS=OFF \
    >/dev/null
fi
cmake --build build --target adaexplore
