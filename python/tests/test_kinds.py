"""The task kinds' table (kinds/): it serves exactly the kinds the C++ side names, refuses any
other by name, and its modules import in any order (the Task shape is a leaf they share)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import PYTHON_DIR
from adaexplore_worker import kinds
from adaexplore_worker.evaluation import load
from adaexplore_worker.task import LoadError


def test_every_kind_the_cpp_side_names_has_a_module() -> None:
    header = (PYTHON_DIR.parent / "src" / "task" / "task_kind.h").read_text()
    start = header.index("constexpr TaskKindInfo KindInfo(")  # The kinds' table, by row.
    table = header[start:header.index("\n}\n", start)]
    names = set(re.findall(r'case TaskKind::\w+:\s+return \{\.name = "(\w+)"', table))
    assert names == {"kernelbench", "flashinfer", "tritonbench"}  # The parse found them all.
    assert set(kinds.KINDS) == names


def test_an_unknown_kind_is_a_load_error_naming_the_known_ones() -> None:
    with pytest.raises(LoadError, match=r"unknown task kind 'cutlass'.*kernelbench"):
        kinds.lookup("cutlass")


def test_candidate_python_is_the_text_but_for_a_solution() -> None:
    solution = '{"sources": [{"path": "main.py", "content": "def run(): pass"}]}'
    assert load.candidate_python("kernelbench", solution) == solution
    assert load.candidate_python("tritonbench", solution) == solution
    assert load.candidate_python("flashinfer", solution) == "def run(): pass"


@pytest.mark.parametrize("first", ["task", "evaluation.errors", "kinds.flashinfer",
                                   "kinds.tritonbench", "kinds.kernelbench", "evaluation.load"])
def test_each_module_imports_first(first: str) -> None:
    code = (f"import sys, adaexplore_worker.{first}\n"
            f"if '{first}' in ('task', 'evaluation.errors'):\n"
            f"    assert 'adaexplore_worker.kinds' not in sys.modules, 'a leaf imports the kinds'\n"
            f"import adaexplore_worker.evaluation.load\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=PYTHON_DIR, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
