"""Drives `adaexplore mcp` over stdio with plain JSON-RPC (the GPU image has no MCP SDK) and
prints each answer as a JSON line, with the seconds it took, for issue 41's H200 figures."""

import json
import subprocess
import sys
import time

binary, tasks, kernels = sys.argv[1:4]
server = subprocess.Popen([binary, "mcp", "--python", "python3", "--no-cache"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
next_id = 0


def call(method, params=None):
    global next_id
    next_id += 1
    start = time.monotonic()
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method,
                                   "params": params or {}}) + "\n")
    server.stdin.flush()
    while True:
        message = json.loads(server.stdout.readline())
        if message.get("id") == next_id:
            message["seconds"] = round(time.monotonic() - start, 3)
            print(json.dumps(message), flush=True)
            return message


call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "mcp_drive", "version": "1"}})
call("tools/list")
relu = {"task": f"{tasks}/19_ReLU.py"}
for kernel in ("ok.py", "wrong_last_element.py"):
    r = call("tools/call", {"name": "evaluate",
                            "arguments": {**relu, "kernel": f"{kernels}/19_ReLU/{kernel}"}})
    s = r["result"]["structuredContent"]
    print(f"evaluate {kernel}: {s['verdict']} speedup {s['speedup']} kernel-scope "
          f"{s['speedup_kernel']} ({r['seconds']} s)", file=sys.stderr)
r = call("tools/call", {"name": "compare", "arguments": {
    "task": f"{tasks}/1_Square_matrix_multiplication_.py",
    "kernels": [f"{kernels}/1_Square_matrix_multiplication_/ok.py"] * 2}})
print("compare:", r["result"]["content"][0]["text"][-300:], file=sys.stderr)
r = call("tools/call", {"name": "profile", "arguments": {
    **relu, "kernel": f"{kernels}/19_ReLU/ok.py"}})
print("profile:", json.dumps(r["result"]["structuredContent"]), file=sys.stderr)
server.stdin.close()
print("server exit", server.wait(timeout=60), file=sys.stderr)
