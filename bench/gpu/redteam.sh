#!/usr/bin/env bash
# The whole red-team suite (tests/redteam) on the GPU machine, GPU-only cases included.
source "$(dirname "$0")/common.sh"
stamp "red team on the GPU"
python3 -m pytest -q -p no:cacheprovider tests/redteam --adaexplore-binary "$BIN" \
  --redteam-device cuda --redteam-python python3 -rA 2>&1 | tee "$OUT/redteam.txt" | tail -80
