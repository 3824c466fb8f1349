"""Triton solution for the FlashInfer-Trace definition gqa_paged_decode_h32_kv8_d128_ps1.

Batched GQA decode over a paged KV cache (page_size 1, so a page is one token): 32 query heads
share 8 KV heads (4 query heads per KV head), head_dim 128, bf16 in, bf16 output and an fp32
log-sum-exp in base 2 (the reference's logsumexp(logits * sm_scale) / ln 2).

Split-KV ("flash decoding"), at most two launches, no host sync:
  1. `_gqa_decode_split`: one program per (sequence, KV head, split). It loads the 4 query heads
     of the group once (padded to 16 rows so `tl.dot` applies), walks its share of the
     sequence's pages through kv_indptr/kv_indices in BLOCK_N-token tiles, and keeps an online
     softmax in fp32 (base 2: scores are scaled by sm_scale * log2(e)). The dots take fp32
     operands as tf32, which holds bf16 exactly (q.k is exact products summed in fp32) and keeps
     p to 10 mantissa bits; bf16 operands would also do on the GPU, but Triton 3.6's CPU
     interpreter multiplies bf16 dot operands wrongly, so this one path is the tested one. With
     one split it writes the final output and lse itself; otherwise it writes the split's
     normalised partial output and its base-2 lse.
  2. `_gqa_decode_merge` (only with several splits): one program per (sequence, query head)
     merges the splits' partials by their lse.
The number of splits comes from the shapes only (batch size and the total number of KV indices),
so that small batches still fill the GPU's SMs. An empty sequence gives a zero output and an lse
of -inf, as the reference does.
"""
import functools

import torch
import triton
import triton.language as tl

NUM_QO_HEADS = 32
NUM_KV_HEADS = 8
HEAD_DIM = 128
GROUP = NUM_QO_HEADS // NUM_KV_HEADS  # 4 query heads per KV head
BLOCK_H = 16  # the group padded to tl.dot's smallest M
BLOCK_N = 64  # tokens per tile
MIN_TOKENS_PER_SPLIT = 64
MAX_SPLITS = 64
LOG2E = 1.4426950408889634


@triton.jit
def _gqa_decode_split(
    q_ptr, k_ptr, v_ptr, indptr_ptr, indices_ptr,
    out_ptr, lse_ptr, mid_o_ptr, mid_lse_ptr,
    qk_scale, num_splits,
    stride_qb, stride_qh,
    stride_kp, stride_kh,
    stride_vp, stride_vh,
    stride_ob, stride_oh,
    stride_lb,
    stride_mob, stride_moh, stride_mos,
    stride_mlb, stride_mlh,
    GROUP: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
    DIRECT: tl.constexpr,
):
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    s = tl.program_id(2)

    kv_start = tl.load(indptr_ptr + b)
    kv_end = tl.load(indptr_ptr + b + 1)
    seq_len = kv_end - kv_start
    split_len = tl.cdiv(seq_len, num_splits)
    lo = s * split_len
    hi = tl.minimum(lo + split_len, seq_len)

    offs_g = tl.arange(0, BLOCK_H)
    mask_h = offs_g < GROUP
    heads = kvh * GROUP + offs_g
    offs_d = tl.arange(0, HEAD_DIM)
    offs_n = tl.arange(0, BLOCK_N)

    q = tl.load(q_ptr + b.to(tl.int64) * stride_qb + heads[:, None] * stride_qh + offs_d[None, :],
                mask=mask_h[:, None], other=0.0).to(tl.float32)

    m_i = tl.full([BLOCK_H], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, HEAD_DIM], dtype=tl.float32)

    k_base = k_ptr + kvh * stride_kh
    v_base = v_ptr + kvh * stride_vh
    idx_base = indices_ptr + kv_start
    for n0 in range(lo, hi, BLOCK_N):
        tok = n0 + offs_n
        mask_n = tok < hi
        page = tl.load(idx_base + tok, mask=mask_n, other=0).to(tl.int64)
        k = tl.load(k_base + page[:, None] * stride_kp + offs_d[None, :],
                    mask=mask_n[:, None], other=0.0)
        # bf16 values are exact in tf32, so q.k is exact products with fp32 accumulation.
        qk = tl.dot(q, tl.trans(k.to(tl.float32)), input_precision="tf32") * qk_scale
        qk = tl.where(mask_n[None, :], qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + page[:, None] * stride_vp + offs_d[None, :],
                    mask=mask_n[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p, v.to(tl.float32), input_precision="tf32")
        m_i = m_new

    nonempty = l_i > 0.0
    o = acc / tl.where(nonempty, l_i, 1.0)[:, None]
    lse2 = tl.where(nonempty, m_i + tl.log2(tl.where(nonempty, l_i, 1.0)), float("-inf"))

    if DIRECT:
        tl.store(out_ptr + b.to(tl.int64) * stride_ob + heads[:, None] * stride_oh
                 + offs_d[None, :], o.to(out_ptr.dtype.element_ty), mask=mask_h[:, None])
        tl.store(lse_ptr + b.to(tl.int64) * stride_lb + heads, lse2, mask=mask_h)
    else:
        tl.store(mid_o_ptr + b.to(tl.int64) * stride_mob + heads[:, None] * stride_moh
                 + s * stride_mos + offs_d[None, :], o, mask=mask_h[:, None])
        tl.store(mid_lse_ptr + b.to(tl.int64) * stride_mlb + heads * stride_mlh + s, lse2,
                 mask=mask_h)


@triton.jit
def _gqa_decode_merge(
    mid_o_ptr, mid_lse_ptr, out_ptr, lse_ptr,
    num_splits,
    stride_mob, stride_moh, stride_mos,
    stride_mlb, stride_mlh,
    stride_ob, stride_oh,
    stride_lb,
    BLOCK_S: tl.constexpr, HEAD_DIM: tl.constexpr,
):
    b = tl.program_id(0).to(tl.int64)
    h = tl.program_id(1)
    offs_s = tl.arange(0, BLOCK_S)
    mask_s = offs_s < num_splits
    offs_d = tl.arange(0, HEAD_DIM)

    lse_s = tl.load(mid_lse_ptr + b * stride_mlb + h * stride_mlh + offs_s, mask=mask_s,
                    other=float("-inf"))
    m = tl.max(lse_s, 0)
    m_safe = tl.where(m == float("-inf"), 0.0, m)
    w = tl.exp2(lse_s - m_safe)  # 0 for empty splits
    w_sum = tl.sum(w, 0)
    o_s = tl.load(mid_o_ptr + b * stride_mob + h * stride_moh + offs_s[:, None] * stride_mos
                  + offs_d[None, :], mask=mask_s[:, None], other=0.0)
    nonempty = w_sum > 0.0
    w_div = tl.where(nonempty, w_sum, 1.0)
    o = tl.sum(o_s * w[:, None], 0) / w_div
    lse2 = tl.where(nonempty, m_safe + tl.log2(w_div), float("-inf"))
    tl.store(out_ptr + b * stride_ob + h * stride_oh + offs_d, o.to(out_ptr.dtype.element_ty))
    tl.store(lse_ptr + b * stride_lb + h, lse2)


@functools.lru_cache(maxsize=None)
def _num_sms(device_index):
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def _choose_splits(batch_size, num_kv_indices, device):
    """Splits per (sequence, KV head), from the shapes only (no device-to-host sync): enough
    programs to fill about four waves of the SMs, but at least MIN_TOKENS_PER_SPLIT tokens per
    split of an average-length sequence."""
    sms = _num_sms(device.index if device.index is not None else torch.cuda.current_device()) \
        if device.type == "cuda" else 132
    avg_len = triton.cdiv(max(num_kv_indices, 1), max(batch_size, 1))
    by_length = triton.cdiv(avg_len, MIN_TOKENS_PER_SPLIT)
    by_occupancy = triton.cdiv(4 * sms, max(batch_size, 1) * NUM_KV_HEADS)
    return max(1, min(by_length, by_occupancy, MAX_SPLITS))


def run(q, k_cache, v_cache, kv_indptr, kv_indices, sm_scale):
    batch_size, num_qo_heads, head_dim = q.shape
    assert num_qo_heads == NUM_QO_HEADS and head_dim == HEAD_DIM
    assert k_cache.shape[1] == 1 and k_cache.shape[2] == NUM_KV_HEADS
    if isinstance(sm_scale, torch.Tensor):
        sm_scale = float(sm_scale.item())
    if q.stride(-1) != 1:
        q = q.contiguous()
    if k_cache.stride(-1) != 1:
        k_cache = k_cache.contiguous()
    if v_cache.stride(-1) != 1:
        v_cache = v_cache.contiguous()
    kv_indptr = kv_indptr.contiguous()
    kv_indices = kv_indices.contiguous()
    device = q.device

    output = torch.empty((batch_size, NUM_QO_HEADS, HEAD_DIM), dtype=torch.bfloat16, device=device)
    lse = torch.empty((batch_size, NUM_QO_HEADS), dtype=torch.float32, device=device)
    if batch_size == 0:
        return output, lse

    num_splits = _choose_splits(batch_size, kv_indices.shape[0], device)
    direct = num_splits == 1
    if direct:
        mid_o = output  # unused
        mid_lse = lse  # unused
        mid_o_strides = (0, 0, 0)
        mid_lse_strides = (0, 0)
    else:
        mid_o = torch.empty((batch_size, NUM_QO_HEADS, num_splits, HEAD_DIM), dtype=torch.float32,
                            device=device)
        mid_lse = torch.empty((batch_size, NUM_QO_HEADS, num_splits), dtype=torch.float32,
                              device=device)
        mid_o_strides = (mid_o.stride(0), mid_o.stride(1), mid_o.stride(2))
        mid_lse_strides = (mid_lse.stride(0), mid_lse.stride(1))

    qk_scale = float(sm_scale) * LOG2E
    _gqa_decode_split[(batch_size, NUM_KV_HEADS, num_splits)](
        q, k_cache, v_cache, kv_indptr, kv_indices,
        output, lse, mid_o, mid_lse,
        qk_scale, num_splits,
        q.stride(0), q.stride(1),
        k_cache.stride(0), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(2),
        output.stride(0), output.stride(1),
        lse.stride(0),
        *mid_o_strides,
        *mid_lse_strides,
        GROUP=GROUP, BLOCK_H=BLOCK_H, BLOCK_N=BLOCK_N, HEAD_DIM=HEAD_DIM,
        DIRECT=direct,
        num_warps=4, num_stages=2,
    )
    if not direct:
        _gqa_decode_merge[(batch_size, NUM_QO_HEADS)](
            mid_o, mid_lse, output, lse,
            num_splits,
            *mid_o_strides,
            *mid_lse_strides,
            output.stride(0), output.stride(1),
            lse.stride(0),
            BLOCK_S=triton.next_power_of_2(num_splits), HEAD_DIM=HEAD_DIM,
            num_warps=4,
        )
    return output, lse
