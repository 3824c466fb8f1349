"""Checking one output against its reference: structure first (type, shape, dtype, strides,
aliasing), then values, elementwise and in chunks so outputs of many gigabytes fit in memory.

Criteria (the C++ side picks one and its constants):
  scaled    |out - ref| <= atol * max|ref| + rtol * |ref|   (tolerance scaled to the output)
  allclose  |out - ref| <= atol + rtol * |ref|              (torch.allclose, the paper profile)
A non-finite output element always fails unless the reference has the same non-finite value there.
"""

from __future__ import annotations

from typing import Any

import torch

from ..protocol.channel import finite_or_none

CHUNK_ELEMENTS = 1 << 26  # 64 Mi elements: 512 MiB per float64 temporary.


def flatten_outputs(out: Any) -> list[Any]:
    if isinstance(out, (tuple, list)):
        return list(out)
    return [out]


def structure_facts(out: Any, ref: torch.Tensor, inputs: list[Any]) -> dict[str, Any]:
    """Facts about an output's form; `problems` lists what is wrong in words."""
    problems: list[str] = []
    facts: dict[str, Any] = {"type": f"{type(out).__module__}.{type(out).__qualname__}"}
    if not isinstance(out, torch.Tensor):
        problems.append(f"output is a {facts['type']}, not a torch.Tensor")
        facts["problems"] = problems
        facts["exact_tensor"] = False
        return facts
    facts["exact_tensor"] = type(out) is torch.Tensor
    if not facts["exact_tensor"]:
        problems.append(f"output is a tensor subclass ({facts['type']}), not a plain torch.Tensor")
    facts["shape"] = list(out.shape)
    facts["dtype"] = str(out.dtype).replace("torch.", "")
    facts["shape_ok"] = tuple(out.shape) == tuple(ref.shape)
    facts["dtype_ok"] = out.dtype == ref.dtype
    if not facts["shape_ok"]:
        problems.append(f"output shape {list(out.shape)} != reference shape {list(ref.shape)}")
    if not facts["dtype_ok"]:
        problems.append(f"output dtype {facts['dtype']} != reference dtype "
                        f"{str(ref.dtype).replace('torch.', '')}")
    facts["zero_stride"] = any(st == 0 and n > 1 for st, n in zip(out.stride(), out.shape))
    if facts["zero_stride"]:
        problems.append("output has a zero stride (an expanded view, not computed values)")
    facts["aliases_input"] = _aliases(out, inputs)
    if facts["aliases_input"]:
        problems.append("output shares storage with an input")
    facts["problems"] = problems
    return facts


def _aliases(out: torch.Tensor, inputs: list[Any]) -> bool:
    try:
        base = out.untyped_storage().data_ptr()
        end = base + out.untyped_storage().nbytes()
    except (RuntimeError, NotImplementedError):
        return False
    for x in inputs:
        if isinstance(x, torch.Tensor):
            try:
                xb = x.untyped_storage().data_ptr()
                xe = xb + x.untyped_storage().nbytes()
            except (RuntimeError, NotImplementedError):
                continue
            if base < xe and xb < end:
                return True
    return False


def compare(out: torch.Tensor, ref: torch.Tensor, criterion: str, atol: float,
            rtol: float, ref_max: float | None = None) -> dict[str, Any]:
    """Elementwise comparison facts. `ref` may live on the CPU; it is streamed to out's device.
    `ref_max` (max |ref| over finite elements) may be given when already known."""
    o = out.detach().reshape(-1)
    r = ref.detach().reshape(-1)
    n = o.numel()
    if not (o.is_floating_point() or o.is_complex()) and not r.is_floating_point():
        equal = bool(torch.equal(o, r.to(o.device)))
        return {"numel": n, "violations": 0 if equal else int((o != r.to(o.device)).sum()),
                "max_abs_err": None, "max_rel_err": None, "ref_max_abs": None,
                "nonfinite_out": 0, "passed": equal, "exact": True}
    if ref_max is None:
        ref_max = max_abs_finite(r)
    scale = atol * ref_max if criterion == "scaled" else atol
    violations = 0
    nonfinite_out = 0
    max_abs = 0.0
    max_rel = 0.0
    worst_ratio = -1.0
    worst: dict[str, Any] | None = None
    for start in range(0, n, CHUNK_ELEMENTS):
        oc = o[start:start + CHUNK_ELEMENTS].to(torch.float64)
        rc = r[start:start + CHUNK_ELEMENTS].to(o.device, torch.float64)
        ref_finite = torch.isfinite(rc)
        out_finite = torch.isfinite(oc)
        same_special = (~ref_finite) & ((oc == rc) | (torch.isnan(oc) & torch.isnan(rc)))
        nonfinite_out += int((~out_finite & ~same_special).sum())
        diff = torch.where(ref_finite & out_finite, (oc - rc).abs(), torch.zeros_like(oc))
        threshold = scale + rtol * rc.abs()
        bad = ((diff > threshold) & ref_finite) | (~out_finite & ~same_special) | (
            ~ref_finite & ~same_special)
        violations += int(bad.sum())
        if diff.numel():
            max_abs = max(max_abs, float(diff.max()))
            rel = diff / rc.abs().clamp_min(1e-30)
            rel = torch.where(ref_finite & out_finite & (rc != 0), rel, torch.zeros_like(rel))
            max_rel = max(max_rel, float(rel.max()))
            ratio = torch.where(bad, torch.full_like(diff, float("inf")),
                                diff / threshold.clamp_min(1e-300))
            i = int(torch.argmax(ratio))
            value = float(ratio[i])
            if value > worst_ratio:
                worst_ratio = value
                worst = {"flat_index": start + i, "out": finite_or_none(float(oc[i])),
                         "ref": finite_or_none(float(rc[i])),
                         "out_text": repr(float(oc[i])), "ref_text": repr(float(rc[i]))}
    return {"numel": n, "violations": violations, "max_abs_err": max_abs, "max_rel_err": max_rel,
            "ref_max_abs": ref_max, "nonfinite_out": nonfinite_out, "passed": violations == 0,
            "exact": False, "worst": worst}


def count_mismatches(out: torch.Tensor, ref: torch.Tensor, criterion: str, atol: float,
                     rtol: float) -> int:
    """Elements outside tolerance, computed in float32 (float64 for float64 outputs): the cheap
    check run after every timed call, where the question is replay or skipped work, not rounding.
    Non-finite outputs count unless the reference has the same value."""
    o = out.detach().reshape(-1)
    r = ref.detach().reshape(-1)
    if o.numel() != r.numel():
        return max(o.numel(), r.numel())
    if not o.is_floating_point():
        return int((o != r.to(o.device)).sum())
    work = torch.float64 if o.dtype == torch.float64 else torch.float32
    scale = atol * max_abs_finite(r) if criterion == "scaled" else atol
    bad = 0
    for start in range(0, o.numel(), CHUNK_ELEMENTS):
        oc = o[start:start + CHUNK_ELEMENTS].to(work)
        rc = r[start:start + CHUNK_ELEMENTS].to(o.device, work)
        close = (oc - rc).abs() <= scale + rtol * rc.abs()
        same = (oc == rc) | (torch.isnan(oc) & torch.isnan(rc))
        bad += int((~(close | same)).sum())
    return bad


def relative_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    """max |out - ref| / max |ref| over finite elements, in float32 (float64 for float64 outputs),
    chunked: how accurate a timed output is, beside the trials' figures."""
    o, r = out.detach().reshape(-1), ref.detach().reshape(-1)
    if o.numel() != r.numel() or o.numel() == 0 or not o.is_floating_point():
        return 0.0
    work = torch.float64 if o.dtype == torch.float64 else torch.float32
    worst = 0.0
    for start in range(0, o.numel(), CHUNK_ELEMENTS):
        oc = o[start:start + CHUNK_ELEMENTS].to(work)
        rc = r[start:start + CHUNK_ELEMENTS].to(o.device, work)
        both = torch.isfinite(oc) & torch.isfinite(rc)
        d = torch.where(both, (oc - rc).abs(), torch.zeros_like(oc))
        worst = max(worst, float(d.max()))
    scale = max_abs_finite(r)
    return worst / scale if scale > 0 else 0.0


def constant_mismatches(value: float, ref: torch.Tensor, criterion: str, atol: float,
                        rtol: float, ref_max: float) -> int:
    """Elements of `ref` that a constant output `value` would get wrong (no full-size tensor is
    made). Used by the null-kernel self-test."""
    r = ref.detach().reshape(-1)
    if not r.is_floating_point():
        return int((r != value).sum())
    scale = atol * ref_max if criterion == "scaled" else atol
    bad = 0
    for start in range(0, r.numel(), CHUNK_ELEMENTS):
        rc = r[start:start + CHUNK_ELEMENTS].to(torch.float64)
        bad += int((~((rc - value).abs() <= scale + rtol * rc.abs())).sum())
    return bad


def max_abs_finite(t: torch.Tensor) -> float:
    """Largest |element| over the finite elements, chunked, without a full-size copy."""
    flat = t.detach().reshape(-1)
    best = 0.0
    for start in range(0, flat.numel(), CHUNK_ELEMENTS):
        c = flat[start:start + CHUNK_ELEMENTS]
        if not c.is_floating_point():
            c = c.to(torch.float64)
        c = torch.where(torch.isfinite(c), c.abs(), torch.zeros((), dtype=c.dtype,
                                                                device=c.device))
        if c.numel():
            best = max(best, float(c.max()))
    return best


def bitwise_equal(a: Any, b: Any) -> bool:
    """Same values bit for bit (NaN payloads included); non-tensors compare with ==."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.numel() == 0:
            return True
        return bool(torch.equal(a.reshape(-1).contiguous().view(torch.uint8),
                                b.reshape(-1).contiguous().view(torch.uint8)))
    return a == b


def max_difference(a: torch.Tensor, b: torch.Tensor) -> float | None:
    """Largest |a - b| over finite elements (None where shapes differ)."""
    if a.shape != b.shape:
        return None
    if a.numel() == 0:
        return 0.0
    best = 0.0
    fa, fb = a.reshape(-1), b.reshape(-1)
    for start in range(0, fa.numel(), CHUNK_ELEMENTS):
        x = fa[start:start + CHUNK_ELEMENTS].to(torch.float64)
        y = fb[start:start + CHUNK_ELEMENTS].to(torch.float64)
        both = torch.isfinite(x) & torch.isfinite(y)
        d = torch.where(both, (x - y).abs(), torch.zeros_like(x))
        mismatch_special = (~both) & ~((x == y) | (torch.isnan(x) & torch.isnan(y)))
        if bool(mismatch_special.any()):
            return float("inf")
        best = max(best, float(d.max()))
    return best


def rerun_agreement(first: list[Any], again: list[Any], scale: float, atol: float,
                    rtol: float) -> dict[str, Any]:
    """Two runs of one trial's inputs (the determinism rerun): identical, or no NaN/Inf
    disagreement and a difference within the tolerance at the reference's `scale`. Outputs that
    are not tensors are left to the form checks."""
    worst, identical, special = 0.0, True, False
    for a, b in zip(first, again):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            continue
        identical = identical and bitwise_equal(a, b)
        d = max_difference(a, b)
        if d is None or d == float("inf"):
            special = True
        else:
            worst = max(worst, d)
    allowed = atol * scale + rtol * scale
    return {"identical": identical, "max_abs_diff": worst, "special_mismatch": special,
            "passed": identical or (not special and worst <= allowed)}

