"""Prompt caching end to end, against a loopback server that keeps each provider's prompt cache as
the provider documents it (tests/fakes/caching_llm.py): Anthropic requests carry the cache mark
on the part every step of a role repeats; the tokens each reply says were read from or written to
the cache reach the run's summary, its database and `report` at their own prices; and a dollar
budget counts them so."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Iterator

import pytest

from conftest import Cli, ROOT, example
from scripted_llm import Script

sys.path.insert(0, str(ROOT / "tests" / "fakes"))
from caching_llm import CachingLlm  # noqa: E402

FAST = ["--device", "cpu", "--timed-runs", "2", "--warmup", "0", "--trials", "2",
        "--timeout", "120"]
# Dollars per million tokens: Anthropic's ratios (a read 0.1x input, a write 1.25x).
PRICES = {"input_per_mtok": 3.0, "cached_input_per_mtok": 0.3, "cache_write_per_mtok": 3.75,
          "output_per_mtok": 15.0}


@pytest.fixture()
def server(cli: Cli) -> Iterator[CachingLlm]:
    script = Script()
    # The relu task's prompts are a few thousand tokens: a lower floor than the providers' 1,024
    # keeps every role's prefix cacheable here.
    llm = CachingLlm(lambda body: script.handle("", None, body), min_cached=256)
    cli.env.update(OPENAI_BASE_URL=llm.url + "/v1", OPENAI_API_KEY="sk-cache-test",
                   ANTHROPIC_BASE_URL=llm.url, ANTHROPIC_API_KEY="sk-cache-test")
    yield llm
    llm.close()


def _config(tmp_path: Path, model: str, extra: str = "") -> Path:
    config = tmp_path / "prices.toml"
    config.write_text(f'[llm]\n{extra}\n[llm.prices."{model}"]\n' +
                      "".join(f"{k} = {v}\n" for k, v in PRICES.items()))
    return config


def _cost(usage: dict[str, int]) -> float:
    """What a reply's usage costs at PRICES, from the provider's own fields."""
    if "prompt_tokens" in usage:  # OpenAI: cached tokens are part of prompt_tokens.
        cached = usage["prompt_tokens_details"]["cached_tokens"]
        fresh, read, written = usage["prompt_tokens"] - cached, cached, 0
        out = usage["completion_tokens"]
    else:
        fresh, read = usage["input_tokens"], usage["cache_read_input_tokens"]
        written, out = usage["cache_creation_input_tokens"], usage["output_tokens"]
    return (fresh * PRICES["input_per_mtok"] + read * PRICES["cached_input_per_mtok"] +
            written * PRICES["cache_write_per_mtok"] + out * PRICES["output_per_mtok"]) / 1e6


@pytest.mark.parametrize("model", ["anthropic:scripted", "openai:scripted"])
def test_cached_tokens_are_counted_priced_and_reported(cli: Cli, server: CachingLlm,
                                                       tmp_path: Path, model: str) -> None:
    db = tmp_path / "run.sqlite"
    p = cli.run("run", "--config", str(_config(tmp_path, model)), "--task",
                example("tasks", "relu.py"), "--llm", model, "--steps", "6", "--db", str(db),
                "--out", str(tmp_path / "out"), "--json", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    usages = server.usages
    if model.startswith("anthropic"):
        # The mark is sent: on the user message's first block, never on the step's own part.
        marked = [b for r in server.requests for m in r["messages"] if isinstance(m["content"], list)
                  for b in m["content"] if "cache_control" in b]
        assert len(marked) == len(server.requests)
        read = sum(u["cache_read_input_tokens"] for u in usages)
        written = sum(u["cache_creation_input_tokens"] for u in usages)
        total_in = sum(u["input_tokens"] + u["cache_read_input_tokens"] +
                       u["cache_creation_input_tokens"] for u in usages)
    else:
        read = sum(u["prompt_tokens_details"]["cached_tokens"] for u in usages)
        written, total_in = 0, sum(u["prompt_tokens"] for u in usages)
    assert read > 0, usages  # Later steps of a role hit what earlier ones left.
    cost = json.loads(p.stdout)["run_cost"]
    assert cost["calls"] == len(usages)
    assert cost["input_tokens"] == total_in
    assert cost["cached_input_tokens"] == read
    assert cost["cache_write_tokens"] == written
    assert cost["cost_usd"] == pytest.approx(sum(_cost(u) for u in usages), rel=1e-9)
    # Less than the same tokens billed as plain input.
    plain = sum(_cost({"input_tokens": u.get("input_tokens", 0) +
                       u.get("cache_read_input_tokens", 0) +
                       u.get("cache_creation_input_tokens", 0) + u.get("prompt_tokens", 0),
                       "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0,
                       "output_tokens": u.get("output_tokens", u.get("completion_tokens"))})
                for u in usages)
    assert cost["cost_usd"] < plain
    report = cli.run("report", str(db), "--json", timeout=120)
    assert report.returncode == 0, report.stderr
    rows = json.loads(report.stdout)["runs"][0]["spending"]["by_model_role"]
    assert {r["model"] for r in rows} == {model}
    assert sum(r["cached_input_tokens"] for r in rows) == read
    assert sum(r["cache_write_tokens"] for r in rows) == written


def test_a_dollar_budget_counts_cached_tokens_at_their_price(cli: Cli, server: CachingLlm,
                                                            tmp_path: Path) -> None:
    model = "anthropic:scripted"
    db = tmp_path / "run.sqlite"
    budget = 0.02
    p = cli.run("run", "--config", str(_config(tmp_path, model, f"budget_usd = {budget}")),
                "--task", example("tasks", "relu.py"), "--llm", model, "--steps", "40", "--db",
                str(db), "--out", str(tmp_path / "out"), "--json", *FAST, timeout=900)
    assert p.returncode == 3, p.stderr  # Stopped early, cleanly.
    summary = json.loads(p.stdout)
    assert "budget" in summary["stop_reason"], summary["stop_reason"]
    spent = [_cost(u) for u in server.usages]
    # The budget stopped the run once the calls' cache-aware cost reached it, not before
    # (one call at a time is in flight: in_flight 1).
    assert sum(spent) >= budget > sum(spent[:-1])
    assert summary["run_cost"]["cost_usd"] == pytest.approx(sum(spent), rel=1e-9)


def test_the_runs_last_lines_say_what_the_cache_took(cli: Cli, server: CachingLlm,
                                                     tmp_path: Path) -> None:
    model = "anthropic:scripted"
    p = cli.run("run", "--config", str(_config(tmp_path, model)), "--task",
                example("tasks", "relu.py"), "--llm", model, "--steps", "3", "--db",
                str(tmp_path / "run.sqlite"), "--out", str(tmp_path / "out"), *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    read = sum(u["cache_read_input_tokens"] for u in server.usages)
    written = sum(u["cache_creation_input_tokens"] for u in server.usages)
    assert (f"({read} read from the prompt cache, {written} written to it)" in p.stdout), p.stdout
    assert f"LLM: {len(server.usages)} calls" in p.stdout
