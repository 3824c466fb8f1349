"""`adaexplore llm`: a live exchange with an OpenAI-compatible server on loopback, recorded and
replayed without it; edits applied from a reply; and the API key kept out of everything."""

from __future__ import annotations

import json
from email.message import Message
from pathlib import Path
from typing import Iterator

import pytest

from conftest import Cli, example, serve

seen: list[dict] = []  # Every request the server answered, in order.

KEY = "sk-e2e-4b1d8c2f9a"


@pytest.fixture()
def server() -> Iterator[str]:
    seen.clear()

    def echo(path: str, headers: Message, body: dict) -> str:
        seen.append({"path": path, "auth": headers.get("Authorization"), "body": body})
        return f"echo: {body['messages'][-1]['content']}"

    httpd, url = serve(echo, prompt_tokens=11, completion_tokens=7)
    yield url
    httpd.shutdown()
    httpd.server_close()


def test_ask_records_and_replays_without_the_server(cli: Cli, server: str, tmp_path: Path) -> None:
    recording = tmp_path / "run.jsonl"
    cli.env.update(OPENAI_BASE_URL=server, OPENAI_API_KEY=KEY)
    p = cli.run("llm", "ask", "--llm", "openai:test-model", "--samples", "3", "--record",
                str(recording), "--json", "write a relu kernel", timeout=60)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(line) for line in p.stdout.splitlines()]
    assert [line["text"] for line in lines[:3]] == ["echo: write a relu kernel"] * 3
    assert lines[3]["ledger"]["total"]["calls"] == 3
    assert lines[3]["ledger"]["total"]["input_tokens"] == 33
    assert len(seen) == 3
    assert seen[0]["auth"] == f"Bearer {KEY}"
    assert seen[0]["body"]["max_completion_tokens"] == 32768
    assert KEY not in recording.read_text()
    assert all(KEY not in f.read_bytes().decode("latin-1")
               for f in (tmp_path / "cache").rglob("*") if f.is_file())

    # Replay: no server, no key.
    del cli.env["OPENAI_API_KEY"]
    p = cli.run("llm", "ask", "--llm", f"replay:{recording}", "--samples", "3", "--json",
                "write a relu kernel", timeout=60)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(line) for line in p.stdout.splitlines()]
    assert [line["source"] for line in lines[:3]] == ["replay"] * 3
    assert len(seen) == 3

    # A prompt that was never recorded is a clear error, at once.
    p = cli.run("llm", "ask", "--llm", f"replay:{recording}", "something else", timeout=30)
    assert p.returncode == 1
    assert "not in the recording" in p.stderr


def test_missing_key_for_a_public_endpoint_names_the_variable(cli: Cli) -> None:
    cli.env.pop("OPENAI_API_KEY", None)
    cli.env.pop("OPENAI_BASE_URL", None)
    p = cli.run("llm", "ask", "--llm", "openai:gpt-5-mini", "hello", timeout=30)
    assert p.returncode != 0
    assert "OPENAI_API_KEY" in p.stderr


def test_edits_apply_to_a_kernel(cli: Cli, tmp_path: Path) -> None:
    kernel = Path(example("kernels", "relu", "ok.py")).read_text()
    line = next(x for x in kernel.splitlines() if "BLOCK" in x and "=" in x)
    reply = tmp_path / "reply.txt"
    reply.write_text(f"Smaller change.\n<old_str_1>\n{line}\n</old_str_1>\n"
                     f"<new_str_1>\n{line}  # tuned\n</new_str_1>\n"
                     "<old_str_2>no such text</old_str_2><new_str_2>x</new_str_2>\n")
    out = tmp_path / "new.py"
    p = cli.run("llm", "edits", "--kernel", example("kernels", "relu", "ok.py"), "--reply",
                str(reply), "--out", str(out), "--json", timeout=30)
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert [e["match"] for e in report["edits"]] == ["exact", "not_found"]
    assert "edit 2 was skipped" in report["feedback"]
    assert f"{line}  # tuned" in out.read_text()


def test_candidates_never_see_credentials(cli: Cli, tmp_path: Path) -> None:
    spy = tmp_path / "env_spy.py"
    spy.write_text(Path(example("kernels", "relu", "ok.py")).read_text() + (
        "\nimport os as _os\n"
        "print('ENV', sorted(k for k in _os.environ if 'KEY' in k or 'TOKEN' in k))\n"
        "print('VALUES', any('sk-e2e' in v for v in _os.environ.values()))\n"))
    cli.env.update(OPENAI_API_KEY=KEY, MY_GATEWAY_API_KEY=KEY, HF_TOKEN=KEY)
    code, results = cli.eval_json("--task", example("tasks", "relu.py"), "--kernel", str(spy),
                                  "--timed-runs", "2", "--warmup", "0", "--no-cache",
                                  "--timeout", "120")
    stdout = results["env_spy.py"]["stdout"]
    assert "ENV []" in stdout, stdout
    assert "VALUES False" in stdout
