"""Attention through F.scaled_dot_product_attention with one backend forced (bf16).

Tensors are laid out as Hugging Face passes them: projected (batch, seq, heads, dim) then
transposed to (batch, heads, seq, dim), so Q/K/V are strided views; GQA through enable_gqa=True
(no repeat_kv copy). Prefill is causal with q_len == kv_len; decode is one query token over a
contiguous KV cache (no paging: PyTorch has no paged kernel).
"""
import math

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}

# (batch, heads, kv_heads, seq, head_dim): chosen to span head dim 64/128/256, GQA groups 1/4/8,
# 256 to 32k tokens and batch 1 to 64, at the shapes of Llama-2/3, Qwen2.5, GPT-2 and Gemma-2.
PREFILL = (
    [(1, 32, 8, s, 128) for s in (256, 512, 1024, 2048, 4096, 8192, 16384, 32768)]
    + [(1, 32, 32, s, 128) for s in (1024, 4096, 16384)]
    + [(1, 32, 4, s, 128) for s in (2048, 8192)]
    + [(1, 28, 4, s, 128) for s in (2048, 8192)]
    + [(1, 32, 8, s, 64) for s in (1024, 4096, 16384)]
    + [(8, 12, 12, 1024, 64)]
    + [(1, 16, 8, s, 256) for s in (1024, 4096, 16384)]
    + [(4, 32, 8, 4096, 128), (16, 32, 8, 1024, 128), (64, 32, 8, 256, 128), (8, 32, 8, 2048, 128),
       (32, 32, 8, 512, 128), (2, 32, 8, 8192, 128), (1, 64, 8, 4096, 128)]
)
# (batch, heads, kv_heads, kv_len, head_dim), one query token each: 256 to 128k, batch 1 to 256.
DECODE = (
    [(1, 32, 8, n, 128) for n in (256, 1024, 4096, 16384, 65536, 131072)]
    + [(8, 32, 8, 2048, 128), (32, 32, 8, 1024, 128), (64, 32, 8, 4096, 128), (128, 32, 8, 1024, 128),
       (256, 32, 8, 512, 128), (16, 32, 8, 16384, 128)]
    + [(1, 32, 32, 2048, 128), (16, 32, 32, 2048, 128), (64, 32, 32, 1024, 128), (1, 32, 32, 32768, 128)]
    + [(1, 32, 4, 8192, 128), (32, 32, 4, 4096, 128), (32, 12, 12, 1024, 64), (8, 16, 8, 4096, 256)]
)
BF16 = torch.bfloat16


def _qkv(b, h, kvh, sq, skv, d):
    dev = "cuda"
    q = torch.randn(b, sq, h, d, device=dev, dtype=BF16).transpose(1, 2)
    k = torch.randn(b, skv, kvh, d, device=dev, dtype=BF16).transpose(1, 2)
    v = torch.randn(b, skv, kvh, d, device=dev, dtype=BF16).transpose(1, 2)
    return q, k, v


def _reference(q, k, v, causal, rows):
    """fp32 attention for batch 0 and the last batch, all heads, the given query rows."""
    h, kvh, skv, d = q.shape[1], k.shape[1], k.shape[2], q.shape[3]
    g = h // kvh
    outs = []
    for bi in sorted({0, q.shape[0] - 1}):
        qq = q[bi, :, rows].float()                     # h, r, d
        kk = k[bi].float().repeat_interleave(g, dim=0)  # h, skv, d
        vv = v[bi].float().repeat_interleave(g, dim=0)
        s = qq @ kk.transpose(1, 2) / math.sqrt(d)
        if causal:  # q_len == kv_len here, so row i sees keys 0..i
            pos = torch.arange(skv, device=q.device)
            s = s.masked_fill(pos[None, None, :] > rows[None, :, None], float("-inf"))
        outs.append(torch.softmax(s, -1) @ vv)
    return torch.stack(outs)


def _sample_rows(sq, dev):
    r = torch.unique(torch.cat([torch.arange(min(8, sq)), torch.arange(max(0, sq - 8), sq),
                                torch.randint(0, sq, (8,))])).to(dev)
    return r


def cases(backends=("flash", "cudnn", "efficient"), quick=False, prefill=PREFILL, decode=DECODE):
    """Yields (case dict, make_set, fn, check, set_bytes); prefill / decode: shape lists as above."""
    pre = prefill[:1] if quick else prefill
    dec = decode[:1] if quick else decode
    for bk in backends:
        for (b, h, kvh, s, d) in pre:
            yield _case(bk, "prefill", b, h, kvh, s, s, d)
        for (b, h, kvh, n, d) in dec:
            yield _case(bk, "decode", b, h, kvh, 1, n, d)


def _case(bk, phase, b, h, kvh, sq, skv, d):
    causal = phase == "prefill"
    rep = 1
    if bk == "efficient" and kvh != h:
        # The memory-efficient backend refuses enable_gqa ("No available kernel", seen on the H200
        # with torch 2.11): it runs GQA the way transformers does without it, on K/V repeated to
        # every query head (repeat_kv). The set holds K/V already repeated, so the case times the
        # attention kernel alone, as MHA over `heads` KV heads; gqa_repeat keeps the real group.
        rep, kvh = h // kvh, h
    gqa = kvh != h
    fwd = 2 * 2 * b * h * sq * skv * d
    if causal:  # useful FLOPs: only unmasked pairs, as the backend counts them
        fwd = 2 * 2 * b * h * d * (sq * (sq + 1) // 2)
    nbytes = 2 * (2 * b * h * sq * d + 2 * b * kvh * skv * d)  # Q, O, K, V once
    kernel = "attention_prefill_fused" if causal else "attention_decode"
    name = f"sdpa_{bk}_{phase}_bf16_b{b}_{'s' if causal else 'ctx'}{skv}_h{h}_kv{kvh // rep}_d{d}" + ("_rep" if rep > 1 else "")
    case = dict(name=name, kernel=kernel, dtype="bf16", implementation=f"torch.sdpa.{bk}", batch=b, heads=h,
                kv_heads=kvh, q_len=sq, kv_len=skv, head_dim=d, causal=causal, flops=fwd, bytes=nbytes, gqa_repeat=rep)

    def make_set():
        return _qkv(b, h, kvh, sq, skv, d)

    def fn(q, k, v):
        with sdpa_kernel([BACKENDS[bk]]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)

    def check(s):
        from harness import rel_error
        q, k, v = s
        o = fn(q, k, v)
        rows = _sample_rows(sq, q.device)
        got = torch.stack([o[bi, :, rows] for bi in sorted({0, b - 1})])
        return rel_error(got, _reference(q, k, v, causal, rows))

    return case, make_set, fn, check, nbytes
