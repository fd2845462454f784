"""Absorbed MLA split-KV decode with wide head tiles: a stand-in closer to FlashMLA (issue 11).

mla_decode_triton.py tiles 16 query heads per program (vLLM's TRITON_MLA layout), so DeepSeek-V3's
128 heads re-read every latent tile 8 times and the MMAs are M = 16. FlashMLA (deepseek-ai/
FlashMLA) instead gives one CTA 64 query heads: each latent tile it loads feeds 64 heads, and the
two products (Q K^T over 576 dims, P V over the 512-wide latent) run at M = 64. Here the same in
Triton: grid (batch, ceil(H / BH), splits) with BH = min(64, H) heads a program, BN keys a step,
an online softmax, and mla_decode_triton's combine kernel over the splits. FlashMLA's scheduler
gives each of ~one wave of CTAs an equal share of all sequences' key blocks; the `wave` policy
here approximates that with equal splits that make about one wave (132 CTAs).
"""
import torch
import triton
import triton.language as tl

from mla_decode_triton import D_LAT, D_PE, _combine_kernel

CONFIGS = ((64, 32, 8, 2), (64, 64, 8, 1), (64, 32, 4, 2))  # (BH, BN, num_warps, num_stages)


@triton.jit
def _wide_split_kernel(Q, KV, MidO, MidLse, scale, L, split_len,
                       s_qb, s_qh, s_kb, s_kn, s_ob, s_oh, s_os, s_lb, s_lh,
                       H: tl.constexpr, BH: tl.constexpr, BN: tl.constexpr, DL: tl.constexpr, DP: tl.constexpr):
    b = tl.program_id(0)
    hb = tl.program_id(1)
    s = tl.program_id(2)
    offs_h = hb * BH + tl.arange(0, BH)
    mask_h = offs_h < H
    offs_c = tl.arange(0, DL)
    offs_p = tl.arange(0, DP)
    qrow = Q + b.to(tl.int64) * s_qb + offs_h[:, None] * s_qh
    q_c = tl.load(qrow + offs_c[None, :], mask=mask_h[:, None], other=0.0)
    q_p = tl.load(qrow + DL + offs_p[None, :], mask=mask_h[:, None], other=0.0)
    start = s * split_len
    end = tl.minimum(start + split_len, L)
    m_i = tl.full([BH], float("-inf"), tl.float32)
    l_i = tl.zeros([BH], tl.float32)
    acc = tl.zeros([BH, DL], tl.float32)
    base = KV + b.to(tl.int64) * s_kb
    for n0 in range(start, end, BN):
        offs_n = n0 + tl.arange(0, BN)
        mask_n = offs_n < end
        row = base + offs_n[:, None] * s_kn
        c = tl.load(row + offs_c[None, :], mask=mask_n[:, None], other=0.0)
        pe = tl.load(row + DL + offs_p[None, :], mask=mask_n[:, None], other=0.0)
        qk = tl.dot(q_c, tl.trans(c))
        qk = tl.dot(q_p, tl.trans(pe), qk)
        qk = tl.where(mask_n[None, :], qk * scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(c.dtype), c, acc)
        m_i = m_new
    o = MidO + b.to(tl.int64) * s_ob + offs_h[:, None] * s_oh + s * s_os + offs_c[None, :]
    tl.store(o, acc / l_i[:, None], mask=mask_h[:, None])
    tl.store(MidLse + b * s_lb + offs_h * s_lh + s, m_i + tl.log(l_i), mask=mask_h)


def head_tile(H, cfg):
    return max(16, min(cfg[0], triton.next_power_of_2(H)))


def wave_splits(batch, heads, L, cfg, waves=1, sms=132):
    """Equal splits making about `waves` waves of CTAs, each split at least 2 key blocks."""
    ctas = batch * triton.cdiv(heads, head_tile(heads, cfg))
    return max(1, min(triton.cdiv(waves * sms, ctas), triton.cdiv(L, 2 * cfg[1])))


def split_plan(L, splits, BN):
    split_len = triton.cdiv(triton.cdiv(L, splits), BN) * BN
    return split_len, triton.cdiv(L, split_len)


def mla_decode(q, kv, scale, splits, cfg):
    """q [B, H, 576] bf16; kv [B, L, 576] bf16 (c_kv 512 + k_pe 64). Returns [B, H, 512] bf16."""
    B, H, _ = q.shape
    L = kv.shape[1]
    BH = head_tile(H, cfg)
    split_len, S = split_plan(L, splits, cfg[1])
    mid_o = torch.empty(B, H, S, D_LAT, device=q.device, dtype=torch.float32)
    mid_lse = torch.empty(B, H, S, device=q.device, dtype=torch.float32)
    out = torch.empty(B, H, D_LAT, device=q.device, dtype=q.dtype)
    _wide_split_kernel[(B, triton.cdiv(H, BH), S)](
        q, kv, mid_o, mid_lse, scale, L, split_len, q.stride(0), q.stride(1), kv.stride(0), kv.stride(1),
        mid_o.stride(0), mid_o.stride(1), mid_o.stride(2), mid_lse.stride(0), mid_lse.stride(1),
        H=H, BH=BH, BN=cfg[1], DL=D_LAT, DP=D_PE, num_warps=cfg[2], num_stages=cfg[3])
    _combine_kernel[(B, H)](mid_o, mid_lse, out, S, mid_o.stride(0), mid_o.stride(1), mid_o.stride(2),
                            mid_lse.stride(0), mid_lse.stride(1), out.stride(0), out.stride(1), DL=D_LAT,
                            num_warps=4)
    return out
