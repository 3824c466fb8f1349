"""`adaexplore report --html` opened in headless Chromium: a replayed search's run database
becomes one self-contained page that renders without a console message or a script error, draws
the metrics, the progress chart and every node of the search tree, and can be screenshot."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from browser import CHROMIUM, NO_CHROMIUM, chromium
from conftest import Cli, example

FAST = ["--device", "cpu", "--timed-runs", "2", "--warmup", "0", "--trials", "2",
        "--timeout", "120"]


@pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
def test_the_html_report_renders_in_chromium(cli: Cli, tmp_path: Path) -> None:
    db, page = tmp_path / "run.sqlite", tmp_path / "report.html"
    recording = example("recordings", "relu.jsonl")
    run = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", f"replay:{recording}",
                  "--steps", "5", "--db", str(db), "--out", str(tmp_path / "out"), *FAST,
                  timeout=600)
    assert run.returncode == 0, run.stderr
    report = cli.run("report", str(db), "--html", str(page), "--json")
    assert report.returncode == 0, report.stderr
    steps = json.loads(report.stdout)["runs"][0]["metrics"]["steps"]
    assert steps == 5

    dom = chromium("--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr
    console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []  # No console output at all, errors included.
    body = re.search(r"<body[^>]*>", dom.stdout).group(0)
    assert 'data-ready="1"' in body and "data-errors" not in body
    assert 'data-tree-nodes="6"' in body  # The root and five steps.
    assert len(re.findall(r'class="node[^"]*" fill="[^"]+" stroke="#555" data-verdict=',
                          dom.stdout)) == 6
    # Every node and legend entry takes its colour from the page's data (no fallback grey), and
    # the legend has one entry per verdict and for no kernel.
    assert 'fill="#999"' not in dom.stdout
    assert "background:#2e7d32" in dom.stdout and "background:#bdbdbd" in dom.stdout
    assert "<polyline" in dom.stdout  # The progress and cost charts.
    assert "Node " in dom.stdout  # The best node's panel is open.
    # A node's diff to its parent (the address names the node): in each changed stretch what
    # went (-) comes above what came (+).
    with sqlite3.connect(db) as c:
        [(child,)] = c.execute("SELECT MIN(node) FROM nodes WHERE parent > 0").fetchall()
    assert child is not None
    dom = chromium("--dump-dom", page.as_uri() + f"#node-{child}")
    assert f"Node {child}: " in dom.stdout
    diff = re.search(r'<pre class="diff">(.*?)</pre>', dom.stdout, re.S)
    assert diff, f"node {child}'s panel shows no diff"
    kinds = re.findall(r'<span class="(add|del|same)">', diff.group(1))
    assert "add" in kinds or "del" in kinds, kinds
    stretches = "".join(k[0] for k in kinds).split("s")
    assert all(re.fullmatch(r"d*a*", stretch) for stretch in stretches), kinds
    # Steps tick at whole numbers; speedups keep three significant digits (never "0.00x").
    ticks = re.findall(r'class="x-tick whole"[^>]*>([^<]*)<', dom.stdout)
    assert ticks and all(t.isdigit() for t in ticks), ticks
    assert not re.search(r">0\.00x<", dom.stdout)
    # The progress chart: one curve per method, its mean bold with its spread, named once.
    assert re.findall(r'class="legend"[^>]*>([^<]*)<', dom.stdout)[0] == \
        "adaexplore mean (1)"
    assert 'class="spread"' in dom.stdout
    # Where the kernels were judged, on the page; this run was on the CPU, and the page says so.
    assert re.search(r'<p class="banner">Run 1: [^<]*torch [^<]*profile strict\. CPU run: ',
                     dom.stdout), re.findall(r'<div id="environment">.*?</div>', dom.stdout)

    # Speed-of-light fractions, as a GPU run records them: each correct node is drawn in a green
    # as dark as its fraction, the legend says so, and the methods table gains their mean.
    with sqlite3.connect(db) as c:
        c.execute("UPDATE nodes SET result = json_set(result, '$.sol_fraction', 0.5) "
                  "WHERE verdict = 'correct'")
        (correct,) = c.execute("SELECT count(*) FROM nodes WHERE verdict = 'correct'").fetchone()
    assert correct > 0
    sol_page = tmp_path / "sol.html"
    assert cli.run("report", str(db), "--html", str(sol_page)).returncode == 0
    dom = chromium("--dump-dom", sol_page.as_uri())
    assert len(re.findall(r'fill="hsl\(130, 55%, 57%\)"', dom.stdout)) == correct
    assert "correct, by fraction of the speed of light (darker: nearer)" in dom.stdout
    assert re.search(r"<th>SOL</th>", dom.stdout) and "<td>50%</td>" in dom.stdout
    assert re.search(r"^\| adaexplore \|.* \| 50% \|$", cli.run("report", str(db)).stdout, re.M)

    # At 800 px the node panel goes under the tree, inside the window (it was pushed past its
    # right edge, side by side with a 760 px tree); wide tables scroll in place.
    narrow = chromium("--window-size=800,1400", "--dump-dom", page.as_uri() + f"#node-{child}")
    body = re.search(r"<body[^>]*>", narrow.stdout).group(0)
    assert 'data-ready="1"' in body and "data-past-right-edge" not in body, body
    assert f"Node {child}: " in narrow.stdout
    small = tmp_path / "report-800.png"
    taken = chromium("--hide-scrollbars", "--window-size=800,1400", f"--screenshot={small}",
                     page.as_uri())
    assert taken.returncode == 0 and small.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    shot = tmp_path / "report.png"
    taken = chromium("--hide-scrollbars", "--window-size=1300,1500", f"--screenshot={shot}",
                      page.as_uri())
    assert taken.returncode == 0, taken.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
