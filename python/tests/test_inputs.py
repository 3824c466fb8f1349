"""Input making: seeded, varied in value, never in shape or dtype."""

import torch

from adaexplore_worker.correctness import inputs


def task_inputs():
    return [torch.rand(3, 5), torch.randint(0, 10, (3,)), 7]


def test_same_seed_same_inputs_and_distributions_differ() -> None:
    cpu = torch.device("cpu")
    a = inputs.make_inputs(task_inputs, 11, "task", "fp32", cpu, "device")
    b = inputs.make_inputs(task_inputs, 11, "task", "fp32", cpu, "device")
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]) and a[2] == 7
    normal = inputs.make_inputs(task_inputs, 11, "normal", "fp32", cpu, "device")
    assert not torch.equal(normal[0], a[0]) and bool((normal[0] < 0).any())
    assert torch.equal(normal[1], a[1])  # Integers keep their meaning.
    for name in inputs.DISTRIBUTIONS:
        x = inputs.make_inputs(task_inputs, 3, name, "fp32", cpu, "device")
        assert x[0].shape == (3, 5) and x[0].dtype == torch.float32


def test_precision_casts_float_inputs_only() -> None:
    x = inputs.make_inputs(task_inputs, 1, "task", "bf16", torch.device("cpu"), "cpu")
    assert x[0].dtype == torch.bfloat16 and x[1].dtype == torch.int64


def test_spec_captures_shapes_dtypes_and_values() -> None:
    a = inputs.InputSpec.of([torch.zeros(2, 3), 4])
    assert a == inputs.InputSpec.of([torch.ones(2, 3), 4])
    assert a != inputs.InputSpec.of([torch.zeros(2, 4), 4])
    assert a != inputs.InputSpec.of([torch.zeros(2, 3), 5])


def test_clones_have_fresh_storage() -> None:
    x = [torch.randn(4), 3]
    y = inputs.clone_inputs(x)
    assert torch.equal(x[0], y[0]) and x[0].data_ptr() != y[0].data_ptr() and y[1] == 3


def test_paper_seeds_reproduce_the_reference_release() -> None:
    torch.manual_seed(42)
    expected = [int(torch.randint(0, 2**32 - 1, (1,)).item()) for _ in range(5)]
    assert inputs.trial_seeds("paper", 42, 5) == expected
    assert inputs.trial_seeds("derived", 42, 3) == inputs.trial_seeds("derived", 42, 3)
    assert inputs.trial_seeds("derived", 42, 3) != inputs.trial_seeds("derived", 43, 3)
