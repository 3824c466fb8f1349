"""Static integrity facts on small sources made to order, and on the examples."""

from pathlib import Path

from adaexplore_worker.integrity.integrity import static_facts

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def rules(source: str) -> set[str]:
    return {f["rule"] for f in static_facts(source)["findings"]}


def test_clean_kernels_have_no_findings() -> None:
    for path in (EXAMPLES / "kernels").rglob("*.py"):
        assert static_facts(path.read_text())["findings"] == [], path
    assert rules((EXAMPLES / "cpp" / "relu" / "cpp_inline.py").read_text()) == set()


def test_each_rule() -> None:
    cases = {
        "model_inheritance": "import torch.nn as nn\nclass Model(nn.Module): pass\n"
                             "class ModelNew(Model): pass\n",
        "try_except": "try:\n    x = 1\nexcept Exception:\n    x = 2\n",
        "torch_compile": "import torch\nf = torch.compile(lambda x: x)\n",
        "threads": "from concurrent.futures import ThreadPoolExecutor\n",
        "streams": "import torch\ns = torch.cuda.Stream()\n",
        "precision_flags": "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n",
        "timer_patch": "import torch\ntorch.cuda.Event.elapsed_time = lambda self, other: 0.001\n",
        "lazy_tensor": "import torch\nclass Lazy(torch.Tensor):\n    pass\n",
        "harness_access": "import gc\nobjs = gc.get_objects()\n",
    }
    for rule, source in cases.items():
        assert rule in rules(source), (rule, rules(source))


def test_streams_in_cuda_source_strings_count() -> None:
    source = 'CUDA = """\ncudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"""\n'
    assert "streams" in rules(source)


def test_findings_carry_line_and_text() -> None:
    facts = static_facts("import torch\n\n\nx = torch.compile(f)\n")
    assert facts["findings"] == [{"rule": "torch_compile", "line": 4,
                                  "text": "x = torch.compile(f)"}]


def test_comments_and_docstrings_do_not_count_and_bad_syntax_is_not_an_error() -> None:
    assert rules("# torch.cuda.Stream() would be wrong here\nx = 1\n") == set()
    assert rules('"""Would pass with TRITON_F32_DEFAULT=ieee or allow_tf32."""\nx = 1\n') == set()
    assert "precision_flags" in rules('import os\nos.environ["TRITON_F32_DEFAULT"] = "tf32"\n')
    assert "precision_flags" in rules('CPP = "at::globalContext().setAllowTF32CuBLAS(true);"\n')
    assert static_facts("class (:\n") == {"parsed": False, "findings": []}


def test_bad_examples_are_flagged() -> None:
    assert "harness_access" in rules((EXAMPLES / "bad" / "relu" / "forge_result.py").read_text())
    assert "harness_access" in rules((EXAMPLES / "bad" / "relu" / "kill_worker.py").read_text())


def test_profiler_detection_is_harness_access() -> None:
    """A kernel that checks whether it is being traced could run its own kernels only then."""
    assert "harness_access" in rules("import torch\nif torch.autograd._profiler_enabled():\n"
                                     "    pass\n")
    assert "harness_access" in rules("from torch.profiler import profile\n")
    assert "harness_access" not in rules("import torch\ny = torch.relu(torch.ones(1))\n")



def test_harness_access_sees_through_the_spellings_an_attacker_uses() -> None:
    """Issue 34's misses: a /proc path spelt in pieces, a computed getattr on os, killpg,
    ctypes, sockets, sqlite3 (the run database), and the same modules by __import__."""
    for source in ('p = "/pr" + "oc/1/environ"\n', 'p = f"/{\'pr\'}oc/self/maps"\n',
                   'p = "".join(["/pr", "oc"])\n', 'p = "/proc/1/root"\n',
                   'import os\nkill = getattr(os, "ki" + "ll")\n',
                   'import os\nkill = getattr(os, "kill")\n', 'import os\nos.killpg(0, 9)\n',
                   'import ctypes\n', 'from ctypes import CDLL\n', 'import socket\n',
                   'import sqlite3\n', 'm = __import__("sock" + "et")\n',
                   'import importlib\nm = importlib.import_module("ctypes")\n',
                   # The harness's globals in the candidate's module (setup_marks.py).
                   'm = __adaexplore_setup__\n', 'm = globals()["__adaexplore_setup__"]\n',
                   'm = globals()["__ada" + "explore_setup__"]\n',
                   # A function's module names, or rebinding what torch runs.
                   'def f():\n    pass\ng = f.__globals__\n',
                   'import torch\ntorch.floor_divide = print\n',
                   'import torch\ntorch.Tensor.reciprocal = print\n',
                   'import torch\nsetattr(torch.Tensor, "cuda", print)\n'):
        assert "harness_access" in rules(source), source
    # What kernels do every day stays clean.
    for source in ('import torch\ntorch.backends.cuda.matmul.allow_tf32 = False\n',
                   'import os\np = os.path.join("a", "b")\n', 'import os\nn = os.cpu_count()\n',
                   'import os\nf = getattr(os, "environ")\n', 'x = "/processed" [:0]\n'):
        assert "harness_access" not in rules(source), source
