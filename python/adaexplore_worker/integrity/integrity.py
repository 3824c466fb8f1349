"""Static facts about a candidate's source: constructs a kernel has no business using, each with
its line. Facts only: which of them reject a candidate is decided on the C++ side.

Rules (names are stable; the C++ side and the docs use them):
  model_inheritance  ModelNew derives from something other than nn.Module (e.g. the reference)
  try_except         a try/except (or contextlib.suppress): the shape of a fallback to PyTorch
                     when a kernel fails
  torch_compile      torch.compile / torch._dynamo / torch._inductor
  threads            threading, _thread, multiprocessing, concurrent.futures, asyncio
  streams            CUDA streams other than the current one (Python or C++ source)
  precision_flags    TF32 / matmul-precision / reduced-precision switches
  timer_patch        rebinding timers or synchronisation (torch.cuda.Event, synchronize, time.*)
  lazy_tensor        torch.Tensor subclasses and the hooks that make lazy outputs
  harness_access     reaching into the harness: gc, frames, sys.modules, __globals__,
                     rebinding torch's functions, /proc (however the path is spelt), os.write,
                     signals to other processes, ctypes, sockets, sqlite3, getattr on
                     os/sys/signal with a computed name, the profiler (a kernel that checks
                     whether it is being traced)
"""

from __future__ import annotations

import ast
import re
from typing import Any

# Every rule a finding may name, here or in audit.py and runtime_checks.py: the C++ side's registry
# (src/eval/checks.h) holds the same names, and tests/golden/protocol/rules.json both sides' tests.
RULES = ("model_inheritance", "try_except", "torch_compile", "threads", "streams",
         "precision_flags", "timer_patch", "lazy_tensor", "harness_access", "dynamic_code")

_THREAD_MODULES = ("threading", "_thread", "multiprocessing", "concurrent", "asyncio")
_COMPILE_PREFIXES = ("torch.compile", "torch._dynamo", "torch._inductor")
# Searched in string constants (CUDA/C++ sources, environment variable names), never in
# docstrings or comments.
_STREAM_PATTERN = re.compile(
    r"cudaStreamCreate|cudaStreamNonBlocking|getStreamFromPool|cudaStreamPerThread|"
    r"setCurrentCUDAStream")
_PRECISION_PATTERN = re.compile(
    r"setAllowTF32|setFloat32MatmulPrecision|setAllowFP16ReductionCuBLAS|"
    r"setAllowBF16ReductionCuBLAS|TRITON_F32_DEFAULT")
_STREAM_NAMES = ("torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.ExternalStream",
                 "torch.cuda.set_stream", "torch.cuda.StreamContext")
_PRECISION_NAMES = ("allow_tf32", "allow_fp16_reduced_precision_reduction",
                    "allow_bf16_reduced_precision_reduction", "set_float32_matmul_precision")
_TIMER_TARGETS = ("torch.cuda.Event", "torch.cuda.synchronize", "time.perf_counter", "time.time",
                  "time.monotonic", "torch.cuda.Event.elapsed_time", "torch.cuda.Event.record",
                  "triton.testing")
_HARNESS_CALLS = ("gc.get_objects", "gc.get_referrers", "sys._getframe", "inspect.stack",
                  "inspect.currentframe", "os.write", "os.fdopen", "os.kill", "os.killpg",
                  "os.getppid", "signal.pthread_kill", "signal.pidfd_send_signal")
# Modules a kernel never needs and a candidate would use to reach past the harness: C calls,
# the network, the run database.
_HARNESS_MODULES = ("gc", "inspect", "ctypes", "_ctypes", "socket", "_socket", "sqlite3",
                    "_sqlite3")
_REACHABLE_MODULES = ("os", "sys", "signal", "posix", "ctypes", "builtins", "gc", "inspect")
# /proc, /proc/..., not /processed; the harness's own globals in the candidate's module
# (fallback.py's recorder, setup_marks.py's marks), reached by a string.
_HARNESS_TEXT = re.compile(r"/proc(?![\w.-])|__adaexplore")
_PROFILER = re.compile(r"profiler|kineto", re.IGNORECASE)
# torch's settings a kernel may set (each judged by its own rule: precision_flags,
# torch_compile), unlike rebinding one of torch's functions.
_TORCH_SETTINGS = ("torch.backends", "torch._dynamo", "torch._inductor")
_LAZY_HOOKS = ("__torch_function__", "__torch_dispatch__", "_make_subclass", "_make_wrapper_subclass")


def _dotted(node: ast.AST) -> str:
    """'torch.cuda.Stream' for an Attribute/Name chain, '' otherwise."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _folded(node: ast.AST) -> str:
    """The text a string expression spells when its parts are constants ("/pr" + "oc",
    f"/{'pr'}oc", "".join(["/pr", "oc"]), "/cor p"[::-1] is beyond it); "" otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _folded(node.left) + _folded(node.right)
    if isinstance(node, ast.JoinedStr):
        return "".join(_folded(v.value) if isinstance(v, ast.FormattedValue) else _folded(v)
                       for v in node.values)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "join" and node.args
            and isinstance(node.args[0], (ast.List, ast.Tuple))):
        return _folded(node.func.value).join(_folded(e) for e in node.args[0].elts)
    return ""


def _computed_getattr(node: ast.Call) -> bool:
    """getattr(os, <anything but a plain name>) and the like, or getattr(os, "kill")."""
    if _dotted(node.func) != "getattr" or len(node.args) < 2:
        return False
    target = _dotted(node.args[0])
    if target.split(".")[0] not in _REACHABLE_MODULES:
        return False
    name = node.args[1]
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        return f"{target}.{name.value}" in _HARNESS_CALLS
    return True


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                out.add(id(body[0].value))
    return out


def static_facts(source: str) -> dict[str, Any]:
    """Findings in `source`: {"findings": [{"rule", "line", "text"}], "parsed": bool}."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {"parsed": False, "findings": []}
    lines = source.splitlines()
    findings: list[dict[str, Any]] = []

    def add(rule: str, node: ast.AST | int) -> None:
        assert rule in RULES, rule
        line = node if isinstance(node, int) else getattr(node, "lineno", 0)
        text = lines[line - 1].strip()[:160] if 0 < line <= len(lines) else ""
        if not any(f["rule"] == rule and f["line"] == line for f in findings):
            findings.append({"rule": rule, "line": line, "text": text})

    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            if node.name == "ModelNew":
                for base in node.bases:
                    name = _dotted(base)
                    if name.split(".")[-1] != "Module":
                        add("model_inheritance", node)
            for base in node.bases:
                if _dotted(base) in ("torch.Tensor", "Tensor"):
                    add("lazy_tensor", node)
        elif isinstance(node, ast.Try) and node.handlers:
            add("try_except", node)
        elif _dotted(node) in ("contextlib.suppress", "suppress"):
            add("try_except", node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names]
            module = node.module if isinstance(node, ast.ImportFrom) else None
            for name in ([module] if module else []) + names:
                if name and name.split(".")[0] in _THREAD_MODULES:
                    add("threads", node)
                if name and name.split(".")[0] in _HARNESS_MODULES:
                    add("harness_access", node)
                if name and _PROFILER.search(name):
                    add("harness_access", node)  # A kernel that behaves differently when traced.
            if module and module.startswith(("torch._dynamo", "torch._inductor")):
                add("torch_compile", node)
        elif isinstance(node, ast.Attribute):
            name = _dotted(node)
            if name.startswith(_COMPILE_PREFIXES):
                add("torch_compile", node)
            if name in ("sys.modules",) or _PROFILER.search(node.attr):
                add("harness_access", node)
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in _HARNESS_CALLS or _computed_getattr(node):
                add("harness_access", node)
            if name in ("__import__", "importlib.import_module") and node.args:
                if _folded(node.args[0]).split(".")[0] in _HARNESS_MODULES:
                    add("harness_access", node)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = _dotted(target)
                if any(name == t or name.startswith(t + ".") for t in _TIMER_TARGETS):
                    add("timer_patch", node)
                elif name.startswith("torch.") and not name.startswith(_TORCH_SETTINGS):
                    add("harness_access", node)  # Rebinding torch's own (setup_marks.py).
        elif isinstance(node, ast.FunctionDef) and node.name in _LAZY_HOOKS:
            add("lazy_tensor", node)
        if isinstance(node, ast.Name) and node.id.startswith("__adaexplore"):
            add("harness_access", node)  # The harness's recorder (fallback.py), its marks.
        if isinstance(node, ast.Attribute) and node.attr in _LAZY_HOOKS:
            add("lazy_tensor", node)
        if isinstance(node, ast.Call) and _dotted(node.func) in ("setattr",) and node.args:
            if _dotted(node.args[0]) in _TIMER_TARGETS + ("torch.cuda", "time", "torch"):
                add("timer_patch", node)
            elif _dotted(node.args[0]).startswith(("torch.Tensor", "torch.nn")):
                add("harness_access", node)  # Rebinding torch's own (setup_marks.py).
        if isinstance(node, ast.Attribute) and node.attr in ("__globals__", "__closure__"):
            add("harness_access", node)  # A module's names: the harness's marks among them.

    docstrings = _docstring_nodes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            name = _dotted(node)
            if name.startswith(_STREAM_NAMES):
                add("streams", node)
            if node.attr in _PRECISION_NAMES:
                add("precision_flags", node)
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings):
            for offset, text in enumerate(node.value.splitlines()):
                line = node.lineno + offset
                if _STREAM_PATTERN.search(text):
                    add("streams", line)
                if _PRECISION_PATTERN.search(text):
                    add("precision_flags", line)
                if _HARNESS_TEXT.search(text):
                    add("harness_access", line)
        if (isinstance(node, (ast.BinOp, ast.JoinedStr, ast.Call))
                and _HARNESS_TEXT.search(_folded(node))):
            add("harness_access", node)  # "/pr" + "oc/", f"/{'proc'}", "".join([...]).
    findings.sort(key=lambda f: (f["line"], f["rule"]))
    return {"parsed": True, "findings": findings}
