"""A split-KV decode attention in Triton that reads its K/V cache as bf16 or as fp8 e4m3 (issue 12,
the production stand-in for an FP8-KV decode attention; written for this project, in the design
vLLM's TRITON_ATTN decode backend and FlashDecoding share, not copied from either):

  split kernel, grid (batch, kv_heads, splits): one CTA takes the GROUP query heads that share a
    kv head (padded to 16 rows for tl.dot), walks its chunk of the cache in BLOCK_N-key tiles
    with an online softmax, and writes its partial output and log-sum-exp (or, with one split,
    the final bf16 output directly);
  combine kernel, grid (batch, heads): merges the splits' partial outputs by their weights.

An fp8 cache is loaded as e4m3 bytes and converted to bf16 in registers before each MMA; its
per-tensor scales (k_scale, v_scale) fold into the softmax scale and the output, as vLLM's fp8
KV cache does. The cache layout is [batch, kv_heads, ctx, head_dim] (contiguous per sequence, not
paged: the page table's indirection is left out).
"""
import math

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def _split_kernel(Q, K, V, Out, O_part, L_part, qk_scale, v_scale,
                  s_qb, s_qh, s_kb, s_kh, s_ks, s_vb, s_vh, s_vs, s_ob, s_oh, s_pb, s_ph, s_ps, s_lb, s_lh,
                  ctx, chunk,
                  GROUP: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr,
                  DIRECT: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)  # b x the batch stride passes 2^31 at 64 x 32 heads x 32k keys
    kvh = tl.program_id(1).to(tl.int64)
    sp = tl.program_id(2)
    offs_h = tl.arange(0, BLOCK_H)
    offs_d = tl.arange(0, D)
    offs_n = tl.arange(0, BLOCK_N)
    hmask = offs_h < GROUP
    h = kvh * GROUP + offs_h
    q = tl.load(Q + b * s_qb + h[:, None] * s_qh + offs_d[None, :], mask=hmask[:, None], other=0.0)
    q = q.to(tl.bfloat16)
    start = sp * chunk
    end = tl.minimum(start + chunk, ctx)
    k_base = K + b * s_kb + kvh * s_kh
    v_base = V + b * s_vb + kvh * s_vh
    m_i = tl.full([BLOCK_H], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_H], tl.float32)
    acc = tl.zeros([BLOCK_H, D], tl.float32)
    for n0 in range(start, end, BLOCK_N):
        n = n0 + offs_n
        nmask = n < end
        # e4m3 (or bf16) from memory, bf16 in registers: the conversion is the fp8 cache's extra work
        k = tl.load(k_base + n[:, None] * s_ks + offs_d[None, :], mask=nmask[:, None], other=0.0).to(tl.bfloat16)
        s = tl.dot(q, tl.trans(k)) * qk_scale  # log2 units; qk_scale holds 1/sqrt(d), k_scale, log2(e)
        s = tl.where(nmask[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + n[:, None] * s_vs + offs_d[None, :], mask=nmask[:, None], other=0.0).to(tl.bfloat16)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
        m_i = m_new
    acc = acc / l_i[:, None] * v_scale
    if DIRECT:
        tl.store(Out + b * s_ob + h[:, None] * s_oh + offs_d[None, :], acc.to(tl.bfloat16), mask=hmask[:, None])
    else:
        tl.store(O_part + b * s_pb + h[:, None] * s_ph + sp * s_ps + offs_d[None, :], acc, mask=hmask[:, None])
        tl.store(L_part + b * s_lb + h * s_lh + sp, m_i + tl.log2(l_i), mask=hmask)


@triton.jit
def _combine_kernel(Out, O_part, L_part, s_ob, s_oh, s_pb, s_ph, s_ps, s_lb, s_lh, splits,
                    BLOCK_S: tl.constexpr, D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    h = tl.program_id(1).to(tl.int64)
    offs_s = tl.arange(0, BLOCK_S)
    offs_d = tl.arange(0, D)
    smask = offs_s < splits
    lse = tl.load(L_part + b * s_lb + h * s_lh + offs_s, mask=smask, other=-float("inf"))
    w = tl.exp2(lse - tl.max(lse, 0))
    w = tl.where(smask, w, 0.0)
    o = tl.load(O_part + b * s_pb + h * s_ph + offs_s[:, None] * s_ps + offs_d[None, :], mask=smask[:, None], other=0.0)
    out = tl.sum(o * w[:, None], 0) / tl.sum(w, 0)
    tl.store(Out + b * s_ob + h * s_oh + offs_d, out.to(tl.bfloat16))


BLOCK_N = 64
TARGET_CTAS = 2 * 132  # two CTAs per SM of the H200 (read from the device in plan_splits' caller)


def plan_splits(batch, kv_heads, ctx, sm_count=132):
    """(splits, chunk): enough splits that batch x kv_heads x splits fills about two CTAs per SM,
    each split at least 256 keys and at most 64 splits; chunk a whole number of BLOCK_N tiles."""
    base = batch * kv_heads
    splits = max(1, min(math.ceil(2 * sm_count / base), math.ceil(ctx / 256), 64))
    chunk = math.ceil(math.ceil(ctx / splits) / BLOCK_N) * BLOCK_N
    return math.ceil(ctx / chunk), chunk


def decode_attention(q, k, v, k_scale=1.0, v_scale=1.0, sm_count=132):
    """q [B, H, D] bf16; k, v [B, Hkv, ctx, D] bf16 or float8_e4m3fn -> [B, H, D] bf16."""
    B, H, D = q.shape
    _, Hkv, ctx, _ = k.shape
    group = H // Hkv
    splits, chunk = plan_splits(B, Hkv, ctx, sm_count)
    out = torch.empty(B, H, D, device=q.device, dtype=torch.bfloat16)
    direct = splits == 1
    if direct:
        o_part = l_part = out  # unused
        sp_strides = (0, 0, 0, 0, 0)
    else:
        o_part = torch.empty(B, H, splits, D, device=q.device, dtype=torch.float32)
        l_part = torch.empty(B, H, splits, device=q.device, dtype=torch.float32)
        sp_strides = (o_part.stride(0), o_part.stride(1), o_part.stride(2), l_part.stride(0), l_part.stride(1))
    qk_scale = LOG2E * float(k_scale) / math.sqrt(D)
    _split_kernel[(B, Hkv, splits)](
        q, k, v, out, o_part, l_part, qk_scale, float(v_scale),
        q.stride(0), q.stride(1), k.stride(0), k.stride(1), k.stride(2), v.stride(0), v.stride(1), v.stride(2),
        out.stride(0), out.stride(1), *sp_strides, ctx, chunk,
        GROUP=group, BLOCK_H=max(16, triton.next_power_of_2(group)), BLOCK_N=BLOCK_N, D=D, DIRECT=direct,
        num_warps=4, num_stages=3)
    if not direct:
        _combine_kernel[(B, H)](out, o_part, l_part, out.stride(0), out.stride(1), *sp_strides, splits,
                                BLOCK_S=triton.next_power_of_2(splits), D=D, num_warps=4)
    return out
