"""The value and form checks, on tensors made to order."""

import torch

from adaexplore_worker.correctness import check


def test_scaled_tolerance_passes_fp32_reordering_and_fails_tf32_sized_errors() -> None:
    torch.manual_seed(0)
    a = torch.randn(256, 512, dtype=torch.float64)
    b = torch.randn(512, 64, dtype=torch.float64)
    exact = a @ b
    # A legitimate fp32 kernel: the same sum in another order, in float32.
    reordered = (a.float().T.flip(0).T @ b.float().flip(0)).to(torch.float32)
    assert check.compare(reordered, exact.float(), "scaled", 1e-4, 1e-4)["passed"]
    # TF32-sized error (10-bit mantissa inputs): about 1e-3 relative, fails.
    tf32 = (a.float() * (1 + 1e-3 * torch.randn_like(a.float()))) @ b.float()
    result = check.compare(tf32, exact.float(), "scaled", 1e-4, 1e-4)
    assert not result["passed"]
    assert result["violations"] > 0 and result["worst"] is not None


def test_allclose_criterion_matches_torch_allclose() -> None:
    ref = torch.tensor([1.0, 0.0, -2.0])
    out = ref + torch.tensor([0.04, 0.04, 0.0])
    assert check.compare(out, ref, "allclose", 5e-2, 5e-2)["passed"]
    assert torch.allclose(out, ref, atol=5e-2, rtol=5e-2)
    out = ref + torch.tensor([0.0, 0.06, 0.0])
    assert not check.compare(out, ref, "allclose", 5e-2, 5e-2)["passed"]


def test_nan_in_output_fails_even_where_tolerance_is_loose() -> None:
    ref = torch.ones(10)
    out = ref.clone()
    out[3] = float("nan")
    r = check.compare(out, ref, "allclose", 1.0, 1.0)
    assert not r["passed"] and r["nonfinite_out"] == 1 and r["worst"]["flat_index"] == 3


def test_matching_infinities_pass() -> None:
    ref = torch.tensor([1.0, float("inf"), float("-inf")])
    assert check.compare(ref.clone(), ref, "scaled", 1e-4, 1e-4)["passed"]
    assert not check.compare(torch.tensor([1.0, float("inf"), 0.0]), ref, "scaled", 1e-4,
                             1e-4)["passed"]


def test_integer_outputs_compare_exactly() -> None:
    ref = torch.tensor([1, 2, 3])
    assert check.compare(ref.clone(), ref, "scaled", 1e-4, 1e-4)["passed"]
    assert not check.compare(torch.tensor([1, 2, 4]), ref, "scaled", 1e-4, 1e-4)["passed"]


def test_compare_streams_in_chunks(monkeypatch) -> None:
    monkeypatch.setattr(check, "CHUNK_ELEMENTS", 7)
    ref = torch.arange(100, dtype=torch.float32)
    out = ref.clone()
    out[93] += 5
    r = check.compare(out, ref, "scaled", 1e-4, 1e-4)
    assert r["violations"] == 1 and r["worst"]["flat_index"] == 93


def test_structure_flags_aliasing_zero_strides_subclasses_shape_and_dtype() -> None:
    x = torch.randn(4, 4)
    ref = torch.empty(4, 4, device="meta")
    assert check.structure_facts(x.clone(), ref, [x])["problems"] == []
    assert check.structure_facts(x, ref, [x])["aliases_input"]
    assert check.structure_facts(x[1:], torch.empty(3, 4, device="meta"), [x])["aliases_input"]
    expanded = torch.randn(1, 4).expand(4, 4)
    assert check.structure_facts(expanded, ref, [x])["zero_stride"]

    class Lazy(torch.Tensor):
        pass

    lazy = x.clone().as_subclass(Lazy)
    assert not check.structure_facts(lazy, ref, [x])["exact_tensor"]
    assert not check.structure_facts(torch.randn(4, 5), ref, [x])["shape_ok"]
    assert not check.structure_facts(x.double(), ref, [x])["dtype_ok"]
    assert check.structure_facts([x], ref, [x])["problems"] == [
        "output is a builtins.list, not a torch.Tensor"]


def test_bitwise_equal_sees_nan_payloads_and_sign_of_zero() -> None:
    a = torch.tensor([0.0, float("nan")])
    assert check.bitwise_equal(a, a.clone())
    assert not check.bitwise_equal(a, torch.tensor([-0.0, float("nan")]))


def test_max_difference() -> None:
    a = torch.tensor([1.0, 2.0])
    assert check.max_difference(a, a + 0.5) == 0.5
    assert check.max_difference(a, torch.tensor([1.0, float("nan")])) == float("inf")
    assert check.max_difference(a, torch.ones(3)) is None


def test_count_mismatches_for_timed_runs() -> None:
    ref = torch.randn(1000)
    assert check.count_mismatches(ref.clone(), ref, "scaled", 1e-3, 1e-3) == 0
    stale = torch.randn(1000)  # A replayed output from other inputs.
    assert check.count_mismatches(stale, ref, "scaled", 1e-3, 1e-3) > 900
    nan = ref.clone()
    nan[5] = float("nan")
    assert check.count_mismatches(nan, ref, "scaled", 1e-3, 1e-3) == 1
    assert check.count_mismatches(torch.zeros(3), torch.zeros(4), "scaled", 1e-3, 1e-3) == 4


def test_relative_error_of_a_timed_output() -> None:
    ref = torch.tensor([4.0, -2.0, 1.0])
    assert check.relative_error(ref.clone(), ref) == 0.0
    assert check.relative_error(torch.tensor([4.0, -2.0, 1.5]), ref) == 0.125  # 0.5 of 4.
    # Non-finite elements are the value checks' business, not this figure's.
    assert check.relative_error(torch.tensor([4.0, float("nan"), 1.0]), ref) == 0.0
    assert check.relative_error(torch.zeros(2), ref) == 0.0  # Shapes differ: no figure.
