"""What prompt caching takes off a search's bill: one AdaExplore run of a showcase task (the
reference run's real LLM-written kernels as the replies, bench/gpu/showcase_llm.py, and the
released 200-rule memory in every prompt) against tests/fakes/caching_llm.py, which keeps each
provider's prompt cache as the provider documents it, once per provider. Every figure comes from
the usage fields of the replies, summed by the run itself (its summary's run_cost) and checked
against the server's own list.

"Before" is the same input billed as plain input (what a request without cache marks pays at
Anthropic, and what the ledger charged before it priced cached tokens); "after" prices each part
at its rate: Anthropic reads 0.1x and writes 1.25x input, OpenAI cached input 0.1x (GPT-5).
Billed input is in input-token equivalents.

    python3 bench/prompt_cache_bill.py --binary build-asan/adaexplore --steps 100 \
        --out bench/results/DATE-cpu-prompt-cache-bill

The kernels run on the CPU in Triton's interpreter at sizes shrunk 16x, their CUDA-only input
checks dropped (the bill depends on the prompts, which hold the kernels and their verdicts, not on
the timings)."""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fakes"))
sys.path.insert(0, str(ROOT / "bench" / "gpu"))
from caching_llm import CachingLlm  # noqa: E402
from showcase_llm import Script  # noqa: E402

RATES = {"anthropic": {"read": 0.1, "write": 1.25}, "openai": {"read": 0.1, "write": 1.0}}
PRICES = {"anthropic": (3.0, 0.3, 3.75, 15.0), "openai": (1.25, 0.125, 1.25, 10.0)}


def showcase(shared: Path, problem: str, folder: Path) -> Path:
    """The task file of showcase tree kb-l2-p<problem>, with the tree's kernels in step order
    in folder/kernels/<task>.json (as tools/device_bundle.sh writes them)."""
    tree = json.loads((shared / "data" / "adaexplore-release" / "showcase" /
                       f"kb-l2-p{problem}-200.json").read_text())
    task = Path(glob.glob(str(shared / "data" / "kernelbench" / "level2" / f"{problem}_*.py"))[0])
    (folder / "kernels").mkdir(parents=True, exist_ok=True)
    nodes = [{"step": s["step"], "created_by": s["created_by"], "code": s["code"]}
             for s in tree["steps"] if s["created_by"] != "dummy_root"]
    (folder / "kernels" / f"{task.stem}.json").write_text(json.dumps(nodes))
    return task


class CpuScript(Script):
    """The showcase's replies with their CUDA-only input checks dropped (`assert x.is_cuda`), so
    that the kernels correct on a GPU can be correct in the interpreter and the pool and prompts
    hold correct kernels as a real run's do."""

    def _next(self, task: str, kind: str) -> str:
        kernel = super()._next(task, kind)
        return re.sub(r"(?m)^(\s*)assert [^\n]*is_cuda[^\n]*$", r"\1pass", kernel)


def bill(usages: list[dict], provider: str) -> dict:
    if provider == "anthropic":
        fresh = sum(u["input_tokens"] for u in usages)
        read = sum(u["cache_read_input_tokens"] for u in usages)
        written = sum(u["cache_creation_input_tokens"] for u in usages)
    else:
        read = sum(u["prompt_tokens_details"]["cached_tokens"] for u in usages)
        fresh, written = sum(u["prompt_tokens"] for u in usages) - read, 0
    total = fresh + read + written
    after = fresh + RATES[provider]["read"] * read + RATES[provider]["write"] * written
    return {"calls": len(usages), "input_tokens": total, "fresh": fresh, "cache_read": read,
            "cache_write": written, "billed_before": total, "billed_after": round(after),
            "share": round(after / total, 4) if total else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=str(ROOT / "build" / "adaexplore"))
    parser.add_argument("--shared", default=str(ROOT.parent / "shared"))
    parser.add_argument("--problem", default="18")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--providers", default="anthropic,openai")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    shared, out = Path(args.shared), Path(args.out)
    memory = shared / "data" / "adaexplore-release" / "general_memory_v1_200.txt"
    if not memory.exists():
        print(f"no {memory}: the showcase and the memory come from ../shared/data", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        task = showcase(shared, args.problem, work)
        for provider in args.providers.split(","):
            script = CpuScript(work / "kernels")
            server = CachingLlm(lambda body: script.reply(body["messages"]))
            model = f"{provider}:showcase"
            config = work / f"{provider}.toml"
            config.write_text(f'[llm.prices."{model}"]\n' + "".join(
                f"{k} = {v}\n" for k, v in zip(("input_per_mtok", "cached_input_per_mtok",
                                                 "cache_write_per_mtok", "output_per_mtok"),
                                                PRICES[provider])))
            env = dict(os.environ, OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY="sk-bill",
                       ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="sk-bill",
                       XDG_CACHE_HOME=str(work / "cache"))
            start = time.time()
            run = subprocess.run(
                [args.binary, "run", "--config", str(config), "--task", str(task), "--llm", model,
                 "--steps", str(args.steps), "--memory", str(memory), "--memory-min-count", "1",
                 "--db", str(work / f"{provider}.sqlite"), "--out", str(work / f"out-{provider}"),
                 "--device", "cpu", "--shrink", "16", "--trials", "1", "--timed-runs", "1",
                 "--min-timed-runs", "1", "--warmup", "0", "--timeout", "120", "--no-cache",
                 "--json"],
                capture_output=True, text=True, env=env, timeout=3600)
            server.close()
            (out / f"run_{provider}.log").write_text(run.stderr[-20000:])
            if run.returncode not in (0, 3):
                print(run.stderr[-3000:], file=sys.stderr)
                return 1
            summary = json.loads(run.stdout)
            figures = bill(server.usages, provider)
            cost = summary["run_cost"]
            # The run's own sums of the same replies' usage fields.
            assert cost["calls"] == figures["calls"], (cost, figures)
            assert cost["input_tokens"] == figures["input_tokens"], (cost, figures)
            assert cost["cached_input_tokens"] == figures["cache_read"], (cost, figures)
            assert cost["cache_write_tokens"] == figures["cache_write"], (cost, figures)
            figures.update(wall_s=round(time.time() - start), run_cost=cost,
                           steps=sum(sum(t["verdicts"].values()) for t in summary["tasks"]),
                           verdicts=summary["tasks"][0]["verdicts"], task=task.stem)
            results[provider] = figures
            print(provider, json.dumps({k: v for k, v in figures.items() if k != "run_cost"}))
            (out / "bill.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
