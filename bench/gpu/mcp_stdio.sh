#!/usr/bin/env bash
# Issue 41 on the H200: `adaexplore mcp` driven over stdio by a plain JSON-RPC client
# (bench/gpu/mcp_drive.py; the image has no `mcp` SDK): initialize, tools/list, then evaluate,
# compare and profile on KernelBench Level-1 hand-written kernels, and evaluate again (cached).
# Carry .device/bin, .device/lib, .device/wheels and .device/kernelbench.
source "$(dirname "$0")/common.sh"
install_sandbox_filter
stamp "mcp session begins"
timeout 300 python3 bench/gpu/mcp_drive.py "$BIN" "$KB/level1" "$KK/level1" >"$OUT/mcp.jsonl" \
  2>"$OUT/mcp.log"
stamp "mcp session ends: exit $?"
tail -c 4000 "$OUT/mcp.log"
