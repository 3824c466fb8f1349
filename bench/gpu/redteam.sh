#!/usr/bin/env bash
# The whole red-team suite (tests/redteam) on the GPU machine, GPU-only cases included. The image
# may lack pytest: it is installed from .device/wheels (tools/device_bundle.sh) into /tmp.
source "$(dirname "$0")/common.sh"
if ! python3 -c "import pytest" 2>/dev/null; then
  python3 -m pip install --quiet --no-index --find-links .device/wheels --target /tmp/adx-pytest \
    pytest >>"$OUT/redteam_setup.txt" 2>&1
  export PYTHONPATH=/tmp/adx-pytest${PYTHONPATH:+:$PYTHONPATH}
fi
stamp "red team on the GPU under ${PROFILE:-strict}"
timeout "${LIMIT:-1500}" python3 -m pytest -q -p no:cacheprovider tests/redteam --adaexplore-binary "$BIN" \
  --redteam-device cuda --redteam-python python3 --redteam-slots "${SLOTS:-4}" \
  --redteam-profile "${PROFILE:-strict}" -rfE 2>&1 | tee "$OUT/redteam.txt" | tail -60
cat /tmp/pytest-of-*/pytest-current/redteam*/group*/results.jsonl >"$OUT/redteam_results.jsonl" 2>/dev/null
stamp "red team done"
