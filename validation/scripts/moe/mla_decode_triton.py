"""Absorbed multi-head latent attention decode in Triton: the production stand-in for FlashMLA and
vLLM's TRITON_MLA backend (issue 11, fused profile).

In the absorbed form (DeepSeek-V2 paper, section 2.1.3) W_UK is folded into the query and W_UV is
applied after attention, so each of the H query heads attends over one shared latent "KV head":
the cache holds, per token, c_kv (kv_lora_rank = 512 dims) followed by k_pe (64 rope dims).
  scores[h, n] = (q[h, :512] . c_kv[n] + q[h, 512:] . k_pe[n]) * scale
  out[h, :]    = softmax(scores[h]) @ c_kv            (the latent is also the value: 512 wide)
Split-KV (flash-decoding): grid (batch, head blocks of 16, splits); each program walks its share
of the keys in blocks of BLOCK_N with an online softmax and writes a partial output and its
log-sum-exp; a combine kernel merges the splits. This is the layout of vLLM's / SGLang's
decode_attention.py grouped kernel (_fwd_grouped_kernel_stage1/_stage2: BLOCK_H 16, the 512 + 64
dims as BLOCK_DMODEL + BLOCK_DPE); the code here is written from that description, not copied.
"""
import math

import torch
import triton
import triton.language as tl

D_LAT, D_PE = 512, 64
BLOCK_H, BLOCK_N = 16, 32


@triton.jit
def _split_kernel(Q, KV, MidO, MidLse, scale, L, split_len,
                  s_qb, s_qh, s_kb, s_kn, s_ob, s_oh, s_os, s_lb, s_lh,
                  H: tl.constexpr, BH: tl.constexpr, BN: tl.constexpr, DL: tl.constexpr, DP: tl.constexpr):
    b = tl.program_id(0)
    hb = tl.program_id(1)
    s = tl.program_id(2)
    offs_h = hb * BH + tl.arange(0, BH)
    mask_h = offs_h < H
    offs_c = tl.arange(0, DL)
    offs_p = tl.arange(0, DP)
    qrow = Q + b * s_qb + offs_h[:, None] * s_qh
    q_c = tl.load(qrow + offs_c[None, :], mask=mask_h[:, None], other=0.0)
    q_p = tl.load(qrow + DL + offs_p[None, :], mask=mask_h[:, None], other=0.0)
    start = s * split_len
    end = tl.minimum(start + split_len, L)
    m_i = tl.full([BH], float("-inf"), tl.float32)
    l_i = tl.zeros([BH], tl.float32)
    acc = tl.zeros([BH, DL], tl.float32)
    for n0 in range(start, end, BN):
        offs_n = n0 + tl.arange(0, BN)
        mask_n = offs_n < end
        row = KV + b * s_kb + offs_n[:, None] * s_kn
        c = tl.load(row + offs_c[None, :], mask=mask_n[:, None], other=0.0)
        pe = tl.load(row + DL + offs_p[None, :], mask=mask_n[:, None], other=0.0)
        qk = tl.dot(q_c, tl.trans(c)) + tl.dot(q_p, tl.trans(pe))
        qk = tl.where(mask_n[None, :], qk * scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(c.dtype), c)
        m_i = m_new
    o = MidO + b * s_ob + offs_h[:, None] * s_oh + s * s_os + offs_c[None, :]
    tl.store(o, acc / l_i[:, None], mask=mask_h[:, None])
    tl.store(MidLse + b * s_lb + offs_h * s_lh + s, m_i + tl.log(l_i), mask=mask_h)


@triton.jit
def _combine_kernel(MidO, MidLse, O, S, s_ob, s_oh, s_os, s_lb, s_lh, s_b, s_h, DL: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    offs = tl.arange(0, DL)
    lbase = MidLse + b * s_lb + h * s_lh
    obase = MidO + b * s_ob + h * s_oh + offs
    m = tl.load(lbase)  # split 0 is never empty
    l = m * 0.0 + 1.0
    acc = tl.load(obase)
    for s in range(1, S):
        lse = tl.load(lbase + s)
        o = tl.load(obase + s * s_os)
        m_new = tl.maximum(m, lse)
        alpha = tl.exp(m - m_new)
        w = tl.exp(lse - m_new)
        acc = acc * alpha + o * w
        l = l * alpha + w
        m = m_new
    tl.store(O + b * s_b + h * s_h + offs, (acc / l).to(O.dtype.element_ty))


def fill_splits(batch, heads, L, sms=132):
    """Splits that fill the SMs about twice (flash-decoding's rule), each at least 4 key blocks."""
    ctas = batch * triton.cdiv(heads, BLOCK_H)
    return max(1, min(triton.cdiv(2 * sms, ctas), triton.cdiv(L, 4 * BLOCK_N)))


def split_plan(L, splits):
    """(split length in keys, a multiple of BLOCK_N; splits actually used, none empty)."""
    split_len = triton.cdiv(triton.cdiv(L, splits), BLOCK_N) * BLOCK_N
    return split_len, triton.cdiv(L, split_len)


def mla_decode(q, kv, scale, splits):
    """q [B, H, 576] bf16 (absorbed query + rope query); kv [B, L, 576] bf16 (c_kv + k_pe).
    Returns [B, H, 512] bf16. `splits` is the number of KV splits asked for."""
    B, H, _ = q.shape
    L = kv.shape[1]
    split_len, S = split_plan(L, splits)
    mid_o = torch.empty(B, H, S, D_LAT, device=q.device, dtype=torch.float32)
    mid_lse = torch.empty(B, H, S, device=q.device, dtype=torch.float32)
    out = torch.empty(B, H, D_LAT, device=q.device, dtype=q.dtype)
    _split_kernel[(B, triton.cdiv(H, BLOCK_H), S)](
        q, kv, mid_o, mid_lse, scale, L, split_len, q.stride(0), q.stride(1), kv.stride(0), kv.stride(1),
        mid_o.stride(0), mid_o.stride(1), mid_o.stride(2), mid_lse.stride(0), mid_lse.stride(1),
        H=H, BH=BLOCK_H, BN=BLOCK_N, DL=D_LAT, DP=D_PE, num_warps=4, num_stages=2)
    _combine_kernel[(B, H)](mid_o, mid_lse, out, S, mid_o.stride(0), mid_o.stride(1), mid_o.stride(2),
                            mid_lse.stride(0), mid_lse.stride(1), out.stride(0), out.stride(1), DL=D_LAT,
                            num_warps=4)
    return out


def reference(q, kv, scale):
    """fp32 reference of the same attention (every head, every key)."""
    qf, kf = q.float(), kv.float()
    scores = torch.einsum("bhd,bnd->bhn", qf, kf) * scale
    return torch.einsum("bhn,bnd->bhd", torch.softmax(scores, dim=-1), kf[..., :D_LAT])


def softmax_scale(qk_nope=128, qk_rope=64):
    """DeepSeek's 1/sqrt(qk_head_dim) before absorption (192 = 128 + 64; YaRN's mscale left out)."""
    return 1.0 / math.sqrt(qk_nope + qk_rope)
