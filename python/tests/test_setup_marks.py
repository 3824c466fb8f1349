"""The marks on a test's own setup calls (setup_marks.py) and the operator's kernel time the trace
derives from them (trace.escaped_work). The profiler's CPU activity runs here; its CUDA activity
(the launches the marks exclude) only on the GPU, so the launches are given as the Chrome trace
holds them."""

import ast
import json
import math
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import torch
from torch.profiler import ProfilerActivity, profile

from adaexplore_worker.evaluation.trace import escaped_work, setup_launches
from adaexplore_worker.kinds import tritonbench
from adaexplore_worker.timing.setup_marks import MARKS, Marks, mark_test

OPERATOR = '''
import torch

def scale(x):
    return x * 3.0 + 1.0
'''

TEST = '''
import torch
import torch.nn.functional as F
from torch import nn

def test_scale():
    torch.manual_seed(0)
    x = torch.randn(64, 64).float()
    w = F.pad(x, (1, 1))
    y = scale(x)
    z = y.sum()
    layer = nn.Identity()
    z2 = layer(z)
    z.requires_grad_(True)
    (z * 2).backward()
    g = torch.autograd.grad
    return {"y": y, "w": w, "z": z2}
'''


def _module(code: str, marks: Marks, functions: list[str]) -> types.ModuleType:
    module = types.ModuleType("adaexplore_test_setup_marks")
    module.__dict__[MARKS] = marks
    exec(compile(code, "<task>", "exec"), module.__dict__)
    marks.admit(module, functions)
    return module


def _marked_test(marks: Marks) -> tuple[str, types.ModuleType]:
    tree = ast.parse(TEST)
    mark_test(tree, marks)
    code = ast.unparse(tree)
    return code, _module(OPERATOR + "\n" + code, marks, ["test_scale"])


def _profiled(run: object, marks: Marks) -> list[dict]:
    with profile(activities=[ProfilerActivity.CPU]) as prof, marks.recording():
        run()  # type: ignore[operator]
    path = Path(__file__).parent / f"trace-{marks.name}.json"
    try:
        prof.export_chrome_trace(str(path))
        return json.loads(path.read_text())["traceEvents"]
    finally:
        path.unlink(missing_ok=True)


def test_torchs_own_calls_and_tensor_methods_are_marked_the_operators_are_not() -> None:
    code, _ = _marked_test(Marks())
    for setup in ("fn('torch.manual_seed')", "fn('torch.randn')", "fn('torch.nn.functional.pad')",
                  "'float')", "'sum')", "fn('torch.nn.Identity')"):
        assert setup in code, setup
    # The operator, an instance of a torch class, backward and torch.autograd are never setup.
    for operator in ("y = scale(x)", "layer(z)", ".backward()", "torch.autograd.grad"):
        assert operator in code, operator
    # requires_grad_ is a Tensor method; backward is not marked even on a plain tensor.
    assert "'requires_grad_')" in code and "'backward')" not in code


def test_the_profile_holds_the_setup_ranges_and_the_operators_work_outside_them() -> None:
    marks = Marks()
    _, module = _marked_test(marks)
    events = _profiled(module.test_scale, marks)
    ranges = [e for e in events if e.get("cat") == "user_annotation" and e["name"] == marks.name]
    assert marks.opened == len(ranges) >= 6

    def inside(op: dict) -> bool:
        return any(r["ts"] <= op["ts"] <= r["ts"] + r["dur"] for r in ranges)
    ops = [e for e in events if e.get("cat") == "cpu_op"]
    assert all(inside(e) for e in ops if e["name"] in ("aten::randn", "aten::constant_pad_nd"))
    # The operator's x * 3.0 + 1.0: outside every range.
    assert [e for e in ops if e["name"] in ("aten::mul", "aten::add")]
    assert not any(inside(e) for e in ops if e["name"] == "aten::add")


def test_nothing_is_marked_outside_the_trace_or_for_a_caller_not_the_tests() -> None:
    marks = Marks()
    _, module = _marked_test(marks)
    module.test_scale()  # Not recording: no range, no count.
    assert marks.opened == 0

    # The candidate's code calling the marks itself (it shares the module) opens no range.
    def forged() -> torch.Tensor:
        return getattr(module, MARKS).fn("torch.randn")(4)
    events = _profiled(forged, marks)
    assert marks.opened == 0
    assert not [e for e in events if e.get("name") == marks.name]


def test_arithmetic_on_plain_tensors_is_marked_and_on_anything_else_is_not() -> None:
    marks = Marks()
    tree = ast.parse("import math\ndef t(x, y):\n    return (x * 2 * math.pi, -x, x @ y, 3 - 1)\n")
    mark_test(tree, marks)
    module = _module(ast.unparse(tree), marks, ["t"])
    x = torch.ones(2, 2)
    with marks.recording():
        out = module.t(x, x)
    assert marks.opened == 4  # Two multiplications, the negation, the matmul; not 3 - 1.
    assert torch.equal(out[0], x * 2 * math.pi) and out[3] == 2

    class Lazy(torch.Tensor):
        pass
    with marks.recording():
        module.t(x.as_subclass(Lazy), x)  # A subclass can hook its operators: not setup.
    assert marks.opened == 0
    original = torch.Tensor.__mul__
    torch.Tensor.__mul__ = lambda a, b: original(a, b)  # type: ignore[method-assign]
    try:
        with marks.recording():
            module.t(x, x)
    finally:
        del torch.Tensor.__mul__  # TensorBase's own again.
    assert marks.opened == 0 and not marks.intact  # A rebound __mul__: nothing is marked.


def test_a_rebound_torch_function_or_a_tensor_subclass_is_not_setup() -> None:
    marks = Marks()
    _, module = _marked_test(marks)
    original = torch.randn
    calls = []

    def rebound(*args: object, **kwargs: object) -> torch.Tensor:
        calls.append(args)
        return original(*args, **kwargs)
    torch.randn = rebound
    try:
        module.test_scale()
    finally:
        torch.randn = original
    assert calls == []  # The test ran torch's randn as it was at load.

    class Lazy(torch.Tensor):
        pass
    x = torch.zeros(3).as_subclass(Lazy)
    _, module = _marked_test(marks)

    assert marks.resolve("torch.cat") and marks.resolve("torch.add")

    def tests_own_frame() -> None:  # Admitted as the test's: only the receiver decides.
        marks.method(x, "sum")()
        marks.fn("torch.cat")([torch.zeros(2), x])  # A subclass among a call's arguments.
        marks.fn("torch.add")(torch.zeros(3), other=x)
    marks.admit(types.SimpleNamespace(__dict__={"f": tests_own_frame}), ["f"])
    with marks.recording():
        tests_own_frame()
    assert marks.opened == 0
    with marks.recording():  # The same calls on plain tensors are marked.
        marks.fn("torch.cat")([torch.zeros(2), torch.ones(2)])
    assert marks.opened == 0  # Not from an admitted frame: this test function's own.


def test_a_rebound_tensor_method_stops_every_mark_and_the_trace_says_so() -> None:
    marks = Marks()
    _, module = _marked_test(marks)
    with marks.recording():
        module.test_scale()
    assert marks.intact and marks.opened > 0
    original = torch.Tensor.reciprocal
    torch.Tensor.reciprocal = lambda self: original(self)  # type: ignore[method-assign]
    try:
        with marks.recording():
            module.test_scale()
    finally:
        del torch.Tensor.reciprocal  # TensorBase's own again.
    assert not marks.intact and marks.opened == 0

    def rebinds_during_the_call() -> None:  # Rebound and put back inside the traced call.
        torch.floor_divide = print  # type: ignore[assignment]
    floor_divide = torch.floor_divide
    with marks.recording():
        try:
            rebinds_during_the_call()
        finally:
            torch.floor_divide = floor_divide
        torch.floor_divide = print  # type: ignore[assignment]
        torch.floor_divide = floor_divide
    assert marks.intact  # Put back before the call ended: nothing ran rebound.
    with marks.recording():
        rebinds_during_the_call()
    torch.floor_divide = floor_divide
    assert not marks.intact


def test_launches_in_a_setup_range_on_its_own_thread_are_setup() -> None:
    name = "adaexplore.setup.0123"
    events = [
        {"ph": "X", "cat": "user_annotation", "name": name, "ts": 100, "dur": 50, "tid": 1},
        {"ph": "X", "cat": "user_annotation", "name": "other", "ts": 300, "dur": 50, "tid": 1},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 120, "dur": 5,
         "tid": 1, "args": {"correlation": 7}},  # Setup: in the range, on its thread.
        {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "ts": 130, "dur": 5,
         "tid": 2, "args": {"correlation": 8}},  # Another thread: the operator's.
        {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "ts": 200, "dur": 5,
         "tid": 1, "args": {"correlation": 9}},  # After the range.
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 310, "dur": 5,
         "tid": 1, "args": {"correlation": 10}},  # In a range of another name.
    ]
    assert setup_launches(events, name) == ({7}, 1)


def test_the_operators_kernel_time_leaves_the_setup_work_out() -> None:
    def kernel(name: str, ts: float, dur: float, correlation: int | None) -> dict:
        args = {} if correlation is None else {"correlation": correlation}
        return {"cat": "kernel", "name": name, "ts": ts, "dur": dur, "args": args}
    work = [kernel("spin_kernel", 0, 100, 1), kernel("normal_kernel", 100, 30, 2),
            kernel("scale_kernel", 130, 10, 3), kernel("unknown_launch", 140, 5, None),
            kernel("spin_kernel", 145, 1, 4)]
    window = escaped_work(list(work), {2})
    assert window.busy_us == 45.0
    assert window.operator_us == 15.0  # A kernel with no correlation counts as the operator's.
    assert escaped_work(list(work)).operator_us is None  # No marks: no operator time.


def test_torch_is_torch_unless_the_test_binds_the_name_to_something_else() -> None:
    def calls(test: str) -> list[str]:
        code = ast.unparse(_rewritten(test))
        return [c for c in ("fn('torch.randn')", "fn('torch.nn.functional.relu')") if c in code]
    # Many TritonBench-G tests import nothing: the operator's code imports torch.
    assert calls("def t():\n    return torch.randn(3)\n") == ["fn('torch.randn')"]
    assert calls("from torch.nn import functional as F\ndef t():\n    return F.relu(1)\n") == [
        "fn('torch.nn.functional.relu')"]
    assert calls("import numpy as torch\ndef t():\n    return torch.randn(3)\n") == []
    assert calls("from numpy import random as torch\ndef t():\n    return torch.randn(3)\n") == []


def _rewritten(test: str) -> ast.Module:
    tree = ast.parse(test)
    mark_test(tree, Marks())
    return tree


def test_on_the_cpu_a_tests_cuda_calls_become_cpu_calls_before_they_are_marked() -> None:
    marks = Marks()
    test = "import torch\n\ndef test_x():\n    x = torch.ones(4).cuda()\n    return x\n"
    code = tritonbench.marked(tritonbench.for_device(test, "cpu"), marks)
    assert "'cpu')()" in code and "cuda" not in code
    module = _module(code, marks, ["test_x"])
    assert module.test_x().device.type == "cpu"


def test_a_tritonbench_task_marks_its_test_and_hands_the_marks_to_the_candidate(
        tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "tritonbench"
    task_file = tmp_path / "scale_add.py"
    task_file.write_text((examples / "scale_add.py").read_text())
    task = tritonbench.load_task(str(task_file), None, "cpu")
    assert isinstance(task.setup_marks, Marks)
    assert task.module.__dict__[MARKS] is task.setup_marks
    composed = (tmp_path / "task_composed.py").read_text()
    assert f"{MARKS}.fn('torch." in composed


SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "tritonbench-g" / "tasks"
# One real TritonBench-G test under the CPU profiler, in Triton's interpreter (set before Triton
# is imported, so in a process of its own): its ranges, their count, and where torch's ops ran.
_PROFILE_ONE = """
import json, sys, torch
from torch.profiler import ProfilerActivity, profile
from adaexplore_worker.kinds import tritonbench
task = tritonbench.load_task(sys.argv[1], None, "cpu")
marks = task.setup_marks
model = task.model_class()
with profile(activities=[ProfilerActivity.CPU]) as prof, marks.recording():
    model(torch.tensor(7))
prof.export_chrome_trace(sys.argv[2])
events = json.load(open(sys.argv[2]))["traceEvents"]
ranges = [e for e in events if e.get("cat") == "user_annotation" and e.get("name") == marks.name]
inside = lambda e: any(r["ts"] <= e["ts"] <= r["ts"] + r["dur"] for r in ranges)
ops = [e for e in events if e.get("cat") == "cpu_op"]
print(json.dumps({"opened": marks.opened, "traced": len(ranges),
                  "setup_outside": sorted({e["name"] for e in ops if e["name"] in (
                      "aten::randn", "aten::rand", "aten::randint", "aten::mul")
                      and not inside(e)}),
                  "ops_outside": len([e for e in ops if not inside(e)])}))
"""


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data absent")
@pytest.mark.parametrize(("operator", "setup_outside"), [
    # torch.rand(n) * 2 * math.pi: the multiplications are the test's too.
    ("cosine_compute.py", []), ("embedding_triton_kernel.py", []),
    ("fast_rms_layernorm.py", []),
    # Its operator makes its own random inputs: the operator's work, outside every range.
    ("batched_vecmat_mult.py", ["aten::randn"])])
def test_a_real_tests_inputs_are_made_in_its_setup_ranges(
        tmp_path: Path, operator: str, setup_outside: list[str]) -> None:
    task = tmp_path / operator
    task.write_text((SHARED / operator).read_text())
    run = subprocess.run(
        [sys.executable, "-c", _PROFILE_ONE, str(task), str(tmp_path / "trace.json")],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "TRITON_INTERPRET": "1",
             "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert run.returncode == 0, run.stderr[-2000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["opened"] == found["traced"] > 0
    assert found["setup_outside"] == setup_outside  # The test's inputs: made in a range.
    assert found["ops_outside"] > 0  # The operator's own work (its wrapper's allocations).
