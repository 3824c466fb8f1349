"""--shrink: a KernelBench task's large module-level sizes divided, the small ones kept."""

import types

from adaexplore_worker.evaluation.shrink import FLOOR, resize_task, shrink_task, task_sizes
from adaexplore_worker.task import Task


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
                                 "image": [224, FLOOR]}}
    assert task.get_inputs() == [256]  # get_inputs reads the module's globals when called.


def test_other_kinds_are_left_as_they_are() -> None:
    task = _task(kind="flashinfer", batch_size=4096)
    assert shrink_task(task, 16) == {"factor": 16, "applies": False, "changed": {}}
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
                     "missing": ["absent", "name"]}
    other = _task(kind="flashinfer", batch_size=16)
    assert resize_task(other, {"batch_size": 3}) == {"applies": False, "changed": {},
                                                     "missing": []}
    assert other.module.batch_size == 16
