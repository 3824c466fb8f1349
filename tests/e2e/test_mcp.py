"""`adaexplore mcp` driven by a real MCP client, the official Python SDK (`mcp` on PyPI): the
handshake, the tool list, evaluations whose verdicts equal `eval --json`'s, the cache, one warm
pool for many calls, and bad input that gets a clear error and never ends the server."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import Cli, example

FAST = ["--trials", "1", "--timed-runs", "1", "--warmup", "0", "--timeout", "120"]
RELU = example("tasks", "relu.py")


def _server(cli: Cli, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(command=str(cli.binary),
                                 args=["mcp", "--device", "cpu", *FAST, *flags],
                                 env=dict(cli.env), cwd=str(cli.tmp))


def _workers(server_pid: int) -> set[int]:
    """The evaluation workers under the server: their pids."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == server_pid and b"adaexplore_worker" in cmdline:
            pids.add(int(entry.name))
    return pids


def _server_pid() -> int:
    """The newest `adaexplore mcp` process of this user."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if len(argv) > 1 and argv[1] == b"mcp" and argv[0].endswith(b"adaexplore"):
                found.append(int(entry.name))
    return max(found)


def test_an_mcp_client_evaluates_kernels_as_eval_does(cli: Cli, tmp_path: Path) -> None:
    kernels = {name: example("kernels", "relu", name)
               for name in ("ok.py", "wrong_values.py", "returns_input.py")}
    flags = [f for k in kernels.values() for f in ("--kernel", k)]
    _, expected = cli.eval_json("--task", RELU, *flags, "--no-cache", *FAST)
    cache = tmp_path / "cache.sqlite"
    kb = tmp_path / "kb"
    (kb / "level1").mkdir(parents=True)
    (kb / "level1" / "19_ReLU.py").write_text(Path(RELU).read_text())

    async def session() -> dict:
        seen: dict = {"progress": []}
        async with stdio_client(_server(cli, "--cache", str(cache))) as (read, write):
            async with ClientSession(read, write) as s:
                init = await s.initialize()
                seen["server"] = init.serverInfo.name
                tools = (await s.list_tools()).tools
                seen["tools"] = sorted(t.name for t in tools)
                # Each tool says what it needs (one of its ways to name a task and a kernel) and
                # what it returns; the client checks every structured result against the latter.
                seen["schemas"] = {t.name: (t.inputSchema, t.outputSchema) for t in tools}

                async def progress(done: float, total: float | None, message: str | None) -> None:
                    seen["progress"].append(message)

                for name, path in kernels.items():
                    r = await s.call_tool("evaluate", {"task": RELU, "kernel": path},
                                          progress_callback=progress)
                    seen[name] = (r.isError, r.structuredContent)
                again = await s.call_tool("evaluate", {"task": RELU, "kernel": kernels["ok.py"]})
                seen["again"] = again.structuredContent
                source = Path(kernels["ok.py"]).read_text()
                seen["source"] = (await s.call_tool("evaluate", {"task": RELU, "source": source,
                                                                 "name": "my relu.py"})
                                  ).structuredContent
                compared = await s.call_tool("compare", {"task": RELU, "kernels": [
                    kernels["ok.py"], kernels["wrong_values.py"]]})
                seen["compare"] = compared.structuredContent
                profiled = await s.call_tool("profile", {"task": RELU, "kernel": kernels["ok.py"]})
                seen["profile"] = profiled.structuredContent
                listed = await s.call_tool("problems", {"level": 1, "suite_dir": str(kb)})
                seen["problems"] = listed.structuredContent
                shown = await s.call_tool("problems", {"level": 1, "problem": "19",
                                                       "suite_dir": str(kb)})
                seen["shown"] = shown.structuredContent
                seen["missing"] = await s.call_tool("evaluate", {"task": str(tmp_path / "no.py"),
                                                                 "kernel": kernels["ok.py"]})
                seen["no_kernel"] = await s.call_tool("evaluate", {"task": RELU})
                seen["after"] = await s.send_ping()
        return seen

    seen = anyio.run(session)
    assert seen["server"] == "adaexplore"
    assert seen["tools"] == ["compare", "evaluate", "problems", "profile"]
    evaluate_in, evaluate_out = seen["schemas"]["evaluate"]
    assert {"required": ["task", "kernel"]} in evaluate_in["anyOf"]
    assert {"required": ["level", "problem", "source"]} in evaluate_in["anyOf"]
    assert evaluate_out["required"] == ["task", "kernel", "verdict", "reason"]
    assert "rejected" in evaluate_out["properties"]["verdict"]["enum"]
    assert all(out["type"] == "object" for _, out in seen["schemas"].values())
    for name in kernels:
        is_error, result = seen[name]
        assert not is_error, result
        assert (result["verdict"], result["check"]) == (expected[name]["verdict"],
                                                        expected[name]["check"]), name
    assert seen["ok.py"][1]["verdict"] == "correct"
    assert seen["wrong_values.py"][1]["verdict"] == "incorrect"
    assert seen["returns_input.py"][1]["verdict"] == "rejected"  # A reward hack.
    assert any(m and m.endswith(": timing") for m in seen["progress"]), seen["progress"]
    # The same kernel again is the cache's answer; the same text as source is the same kernel.
    assert seen["again"]["cached"] is True and seen["again"]["verdict"] == "correct"
    assert seen["source"]["cached"] is True and seen["source"]["verdict"] == "correct"
    assert seen["source"]["kernel"] == "my_relu.py"  # The agent's name, not the server's file.
    assert seen["compare"]["a"]["verdict"] == "correct"
    assert seen["compare"]["b"]["verdict"] == "incorrect" and seen["compare"]["b_over_a"] is None
    assert seen["profile"]["verdict"] == "correct" and seen["profile"]["bottleneck"] is None
    assert seen["profile"]["unavailable"].startswith("no GPU")
    assert [p["name"] for p in seen["problems"]["problems"]] == ["19_ReLU"]
    [shown] = seen["shown"]["problems"]
    assert shown["name"] == "19_ReLU" and "def get_inputs" in shown["source"]
    missing = seen["missing"]
    assert missing.isError and "no such file" in missing.content[0].text
    assert seen["no_kernel"].isError and "give the kernel" in seen["no_kernel"].content[0].text


def test_many_calls_share_one_warm_pool(cli: Cli) -> None:
    kernels = [example("kernels", "relu", n) for n in ("ok.py", "prints.py", "wrong_values.py",
                                                       "wrong_tail.py", "returns_input.py")]

    async def session() -> tuple[set[int], set[int], list[str]]:
        verdicts = []
        async with stdio_client(_server(cli, "--no-cache")) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                first = None
                for i in range(10):
                    r = await s.call_tool("evaluate", {"task": RELU, "kernel": kernels[i % 5]})
                    verdicts.append(r.structuredContent["verdict"])
                    if first is None:
                        pid = _server_pid()
                        first = _workers(pid)
                last = _workers(pid)
        return first, last, verdicts

    first, last, verdicts = anyio.run(session)
    assert len(verdicts) == 10 and verdicts[:5] == verdicts[5:]
    assert first and first == last  # No worker started per call.


def test_bad_messages_get_errors_and_a_closed_input_ends_the_server(cli: Cli) -> None:
    p = subprocess.Popen([cli.binary, "mcp", "--device", "cpu", "--no-cache", *FAST],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=cli.env, cwd=cli.tmp)

    def send(message: object) -> None:
        p.stdin.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
        p.stdin.flush()

    def receive() -> dict:
        return json.loads(p.stdout.readline())

    send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert "before 'initialize'" in receive()["error"]["message"]
    send({"jsonrpc": "2.0", "id": 2, "method": "initialize",
          "params": {"protocolVersion": "2099-01-01", "capabilities": {}}})
    assert receive()["result"]["protocolVersion"] == "2025-06-18"  # Its newest, for an unknown.
    send("{not json")
    assert receive()["error"]["code"] == -32700
    send({"jsonrpc": "2.0", "id": 3, "method": "no/such"})
    assert receive()["error"]["code"] == -32601
    send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "nope"}})
    assert receive()["error"]["code"] == -32602
    send({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
          "params": {"name": "evaluate", "arguments": {"task": RELU, "kernel": 7}}})
    reply = receive()["result"]
    assert reply["isError"] and "'kernel' must be a string" in reply["content"][0]["text"]
    # A cancelled call is not answered; the next one is.
    send({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "evaluate",
          "arguments": {"task": RELU, "kernel": example("kernels", "relu", "ok.py")}}})
    send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6}})
    send({"jsonrpc": "2.0", "id": 7, "method": "ping"})
    assert receive() == {"jsonrpc": "2.0", "id": 7, "result": {}}
    # The client goes away mid-evaluation: the server ends at once, cleanly, answering nothing.
    send({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "evaluate",
          "arguments": {"task": RELU, "kernel": example("kernels", "relu", "prints.py")}}})
    start = time.monotonic()
    p.stdin.close()
    assert p.wait(timeout=60) == 0, p.stderr.read()
    assert time.monotonic() - start < 30
    rest = p.stdout.read()
    assert '"id":6' not in rest.replace(" ", ""), rest
    assert not any(os.path.exists(f"/proc/{pid}") for pid in [p.pid])


def test_a_file_that_is_not_python_is_never_shown_back(cli: Cli, tmp_path: Path) -> None:
    """A client names any file the server can read as its kernel or its task: the SyntaxError's
    traceback quoted its first line (issue 53)."""
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$adx-secret-hash:19000:0:99999:7:::\nmore\n")
    secret.chmod(0o600)

    async def session() -> list:
        async with stdio_client(_server(cli, "--no-cache")) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                return [await s.call_tool("evaluate", {"task": RELU, "kernel": str(secret)}),
                        await s.call_tool("evaluate", {"task": str(secret),
                                                       "kernel": example("kernels", "relu",
                                                                         "ok.py")})]

    for reply, verdict in zip(anyio.run(session), ("compile_error", "task_error")):
        shown = reply.content[0].text + json.dumps(reply.structuredContent)
        assert reply.structuredContent["verdict"] == verdict, shown
        assert "adx-secret-hash" not in shown, shown
        assert "does not parse as Python, so its text is not shown" in shown, shown


def test_arguments_are_checked_against_what_each_tool_declares(cli: Cli, tmp_path: Path) -> None:
    """An unknown key once went unnoticed (`profile` ignored, the kernel judged under strict); a
    problem number came as an integer and was refused; a level listed 1, 10, 100, 11, ..."""
    level = tmp_path / "kb" / "level1"
    level.mkdir(parents=True)
    for name in ("10_Ten.py", "2_Two.py", "1_One.py", "100_Hundred.py"):
        (level / name).write_text(Path(RELU).read_text())

    async def session() -> list:
        async with stdio_client(_server(cli, "--no-cache")) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                return [
                    await s.call_tool("evaluate", {"task": RELU, "profile": "kernelbench",
                                                   "kernel": example("kernels", "relu",
                                                                     "ok.py")}),
                    await s.call_tool("problems", {"level": 1, "suite_dir": str(tmp_path / "kb")}),
                    await s.call_tool("problems", {"level": 1, "problem": 2,
                                                   "suite_dir": str(tmp_path / "kb")})]

    unknown, listed, shown = anyio.run(session)
    assert unknown.isError
    assert "evaluate has no argument 'profile'" in unknown.content[0].text
    assert "kernel" in unknown.content[0].text  # The arguments it has are named.
    names = [p["name"] for p in listed.structuredContent["problems"]]
    assert names == ["1_One", "2_Two", "10_Ten", "100_Hundred"], names
    assert not shown.isError, shown.content[0].text
    assert [p["name"] for p in shown.structuredContent["problems"]] == ["2_Two"]
