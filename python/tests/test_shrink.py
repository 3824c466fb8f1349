"""--shrink: a KernelBench task's large module-level sizes divided, the small ones kept."""

import types
from pathlib import Path

from adaexplore_worker.evaluation.shrink import FLOOR, resize_task, shrink_task, task_sizes
from adaexplore_worker.kinds.kernelbench import load_task
from adaexplore_worker.task import Task

# KernelBench level2/1_Conv2D_ReLU_BiasAdd's module level: bias_shape follows out_channels, and
# `features` (made up) is computed from a size rather than written as one.
CONV_TASK = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return torch.relu(self.conv(x)) + self.bias


batch_size = 128
in_channels = 64
out_channels = 128
height = width = 128
kernel_size = 3
M, N = 1024 * 2, 96
bias_shape = (out_channels, 1, 1)
features = out_channels * 4
features += 1
later = out_channels * 2
later = 7


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, bias_shape]
"""


def _task(kind: str = "kernelbench", **sizes: object) -> Task:
    module = types.ModuleType("task")
    vars(module).update(sizes)
    return Task(module, object, lambda: [module.batch_size], lambda: [], kind=kind)


def test_large_sizes_shrink_and_small_ones_stay() -> None:
    task = _task(batch_size=4096, dim=393216, kernel_size=3, channels=64, eps=1e-5, flag=True,
                 name="x", image=224)
    facts = shrink_task(task, 16)
    m = task.module
    assert (m.batch_size, m.dim, m.image) == (256, 24576, FLOOR)  # 224 // 16 = 14: floored.
    assert (m.kernel_size, m.channels, m.eps, m.flag, m.name) == (3, 64, 1e-5, True, "x")
    assert facts == {"factor": 16, "applies": True,
                     "changed": {"batch_size": [4096, 256], "dim": [393216, 24576],
                                 "image": [224, FLOOR]}, "derived": []}
    assert task.get_inputs() == [256]  # get_inputs reads the module's globals when called.


def test_other_kinds_are_left_as_they_are() -> None:
    task = _task(kind="flashinfer", batch_size=4096)
    assert shrink_task(task, 16) == {"factor": 16, "applies": False, "changed": {}, "derived": []}
    assert task.module.batch_size == 4096


def test_the_tasks_own_sizes_are_its_module_integers() -> None:
    task = _task(batch_size=16, dim=1000, eps=1e-5, flag=True, _private=3)
    assert task_sizes(task) == {"batch_size": 16, "dim": 1000}
    assert task_sizes(_task(kind="tritonbench", batch_size=16)) == {}


def test_other_sizes_are_set_and_reported() -> None:
    task = _task(batch_size=16, dim=1000, name="x")
    facts = resize_task(task, {"dim": 513, "batch_size": 16, "absent": 7, "name": 3})
    assert (task.module.batch_size, task.module.dim, task.module.name) == (16, 513, "x")
    assert facts == {"applies": True, "changed": {"dim": [1000, 513]},
                     "missing": ["absent", "name"], "derived": []}
    other = _task(kind="flashinfer", batch_size=16)
    assert resize_task(other, {"batch_size": 3}) == {"applies": False, "changed": {},
                                                     "missing": [], "derived": []}
    assert other.module.batch_size == 16


def test_what_the_task_computes_from_its_sizes_follows_them(tmp_path: Path) -> None:
    """A task's module-level values made from its sizes (a bias shape) are made again from the
    new ones, by --shrink and by another size set alike, in source order (a later `+=` or
    constant reassignment included); a value computed from a size is not a size of its own,
    and every way of writing a constant one is."""
    path = tmp_path / "1_Conv2D_ReLU_BiasAdd.py"
    path.write_text(CONV_TASK)
    task = load_task(str(path), None, "cpu")
    assert task_sizes(task) == {"batch_size": 128, "in_channels": 64, "out_channels": 128,
                                "height": 128, "width": 128, "kernel_size": 3, "M": 2048,
                                "N": 96}
    assert (task.module.features, task.module.later) == (513, 7)
    facts = resize_task(task, {"out_channels": 65, "M": 1025})
    assert facts["derived"] == ["bias_shape", "features", "later"]
    assert (task.module.bias_shape, task.module.features, task.module.later) == ((65, 1, 1),
                                                                                 261, 7)
    assert (task.module.M, task.get_init_inputs()[3]) == (1025, (65, 1, 1))
    shrunk = load_task(str(path), None, "cpu")
    facts = shrink_task(shrunk, 2)
    assert facts["changed"]["M"] == [2048, 1024] and "features" not in facts["changed"]
    assert (shrunk.module.bias_shape, shrunk.module.features) == ((64, 1, 1), 257)
