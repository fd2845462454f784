"""Whole quantized decode steps of a Hugging Face Llama in eager PyTorch (issue 12), measured the
way validation/scripts/production/hf_decode.py measures bf16 steps (its _wall and _kernel_profile:
median wall of synchronized steps, GPU kernel time per step from torch.profiler), and the FP8 KV
cache's dequantize-then-attend path.

Every nn.Linear of the decoder layers (q, k, v, o, gate, up, down; the LM head stays bf16, as
FP8/AWQ checkpoints keep it) is replaced by a QuantLinear holding three forms of its weight:
  bf16  F.linear (the same model unquantized, the control)
  fp8   row-wise dynamic W8A8: per-token activation quantization in eager torch ops (torchao's
        _choose_scale_float8 / _quantize_affine_float8: abs, amax, cast, clamp, div; cast, div,
        clamp, cast) then torch._scaled_mm with per-token x per-channel fp32 scales
  int4  W4A16 tinygemm, group 128 (torch._weight_int4pack_mm)
The KV cache is built once per (batch, ctx) by a bf16 prefill and shared by the three forms
(tinygemm at tens of thousands of rows would take minutes); transformers' DynamicCache is cropped
back to ctx between timed steps, outside timing, as in hf_decode.py.
"""
import time

import torch
import torch.nn.functional as F

import hf_decode
from quant_gemm import FP8, FP8_MAX, group_quantize_int4

MODE = {"now": "bf16", "pad16": False}


class QuantLinear(torch.nn.Module):
    def __init__(self, lin):
        super().__init__()
        w = lin.weight.data
        self.k = w.shape[1]
        self.weight = w  # bf16, for the control and the prefill
        sw = w.float().abs().amax(1, keepdim=True).clamp(min=1e-12) / FP8_MAX
        self.wq = (w.float() / sw).to(FP8)
        self.sw = sw.t().contiguous()  # 1 x N
        self.packed, self.sz, _ = group_quantize_int4(w, 128)

    def forward(self, x):
        shape = x.shape[:-1]
        mode = MODE["now"]
        if mode == "bf16":
            return F.linear(x, self.weight)
        x2 = x.reshape(-1, self.k)
        if mode == "int4":
            y = torch._weight_int4pack_mm(x2, self.packed, 128, self.sz)
        else:
            amax = torch.amax(torch.abs(x2), dim=-1, keepdim=True)
            sa = amax.to(torch.float32).clamp(min=1e-12) / FP8_MAX
            xq = (x2.to(torch.float32) / sa).clamp(-FP8_MAX, FP8_MAX).to(FP8)
            m = xq.shape[0]
            if MODE["pad16"] and m % 16:
                xq = F.pad(xq.view(torch.uint8), (0, 0, 0, 16 - m % 16)).view(FP8)
                sa = F.pad(sa, (0, 0, 0, 16 - m % 16), value=1.0)
            y = torch._scaled_mm(xq, self.wq.t(), scale_a=sa, scale_b=self.sw, out_dtype=torch.bfloat16)[:m]
        return y.reshape(*shape, -1)


def probe_unpadded_fp8():
    """Whether _scaled_mm takes row-wise scales on 1 row here (else the steps pad to 16 rows)."""
    try:
        x = torch.randn(1, 4096, device="cuda").to(FP8)
        w = torch.randn(4096, 4096, device="cuda").to(FP8)
        torch._scaled_mm(x, w.t(), scale_a=torch.ones(1, 1, device="cuda"),
                         scale_b=torch.ones(1, 4096, device="cuda"), out_dtype=torch.bfloat16)
        torch.cuda.synchronize()
        return "ok"
    except Exception as e:
        MODE["pad16"] = True
        return f"{type(e).__name__}: {str(e)[:200]}"


def quantize(model):
    n = 0
    for layer in model.model.layers:
        for parent in (layer.self_attn, layer.mlp):
            for name, child in list(parent.named_children()):
                if isinstance(child, torch.nn.Linear) and child.bias is None:
                    setattr(parent, name, QuantLinear(child))
                    n += 1
    torch.cuda.empty_cache()
    return n


def steps(key, batches, ctxs, modes, log, deadline, out, on_point=lambda: None, n=20, nprof=3):
    """Per (ctx, batch, mode): one decode step's wall and kernel time, appended to `out` (then
    on_point()); stops at `deadline`."""
    m, cfg = hf_decode.build(key)
    nq = quantize(m)
    log(f"{key}: {nq} linears quantized (fp8 row-wise + int4 g128), pad16={MODE['pad16']}")
    with torch.no_grad():
        # Not recorded: every mode's first steps (cuBLAS/cuBLASLt handles and heuristics, the
        # allocator's first blocks), which the first measured point of h200-quant2's first call kept.
        MODE["now"] = "bf16"
        cache = hf_decode._forward(m, torch.randint(0, cfg.vocab_size, (1, 128), device="cuda"), None).past_key_values
        for mode in modes:
            MODE["now"] = mode
            for _ in range(5):
                m(input_ids=torch.randint(0, cfg.vocab_size, (1, 1), device="cuda"), past_key_values=cache, use_cache=True)
                cache.crop(128)
        torch.cuda.synchronize()
        del cache
        for ctx in ctxs:
            for b in batches:
                if time.perf_counter() > deadline:
                    log("decode: deadline, stopping")
                    return out
                MODE["now"] = "bf16"
                ids = torch.randint(0, cfg.vocab_size, (b, ctx), device="cuda")
                nxt = torch.randint(0, cfg.vocab_size, (b, 1), device="cuda")
                cache = hf_decode._forward(m, ids, None).past_key_values
                del ids

                def step():
                    return m(input_ids=nxt, past_key_values=cache, use_cache=True)

                def between():
                    cache.crop(ctx)
                ref = step().logits.float()
                between()
                for mode in modes:
                    MODE["now"] = mode
                    logits = step().logits.float()
                    between()
                    rel = ((logits - ref).norm() / ref.norm()).item()
                    ok = bool(torch.isfinite(logits).all())
                    med, q1, q3 = hf_decode._wall(step, n, 3, between)
                    kt, cats, kcount, top = hf_decode._kernel_profile(step, nprof, between)
                    r = dict(model=key, phase="decode", quant=mode, batch=b, ctx=ctx, ok=ok, wall_s=med, wall_q1_s=q1,
                             wall_q3_s=q3, kernel_s=kt, kernels_per_step=kcount, kernel_by_category_s=cats,
                             top_kernels_s=top, cache=type(cache).__name__, logits_rel_to_bf16=rel,
                             fp8_rows_padded_to_16=MODE["pad16"])
                    out.append(r)
                    on_point()
                    log(f"decode {mode} b{b} ctx{ctx}: wall {med * 1e3:.3f} ms, kernels {kt * 1e3:.3f} ms "
                        f"({kcount:.0f}), logits rel {rel:.3g}, "
                        + ", ".join(f"{c} {v * 1e3:.2f}" for c, v in cats.items()))
                MODE["now"] = "bf16"
                del cache, step, between
                torch.cuda.empty_cache()
    del m
    torch.cuda.empty_cache()
    return out


def kv_probe():
    """Which fused FP8-KV attention packages import here."""
    res = {}
    for mod in ("flashinfer", "flash_attn_interface", "flash_attn"):
        try:
            __import__(mod)
            res[mod] = "imports"
        except Exception as e:
            res[mod] = f"{type(e).__name__}: {str(e)[:120]}"
    return res


def kv_case(b, ctx, kv, heads=32, kv_heads=8, hd=128):
    """One decode attention over a ctx-token cache: kv 'bf16' (SDPA, enable_gqa) or 'fp8' (e4m3
    K and V cast to bf16, then the same SDPA): (case, make_set, fn, check, set_bytes, tol)."""
    import harness
    dev = "cuda"
    esz = 1 if kv == "fp8" else 2

    def make_set():
        q = torch.randn(b, heads, 1, hd, device=dev, dtype=torch.bfloat16)
        k = torch.randn(b, kv_heads, ctx, hd, device=dev, dtype=torch.bfloat16)
        v = torch.randn(b, kv_heads, ctx, hd, device=dev, dtype=torch.bfloat16)
        if kv == "fp8":
            k, v = k.to(FP8), v.to(FP8)
        return q, k, v

    def fn(q, k, v):
        if kv == "fp8":
            k, v = k.to(torch.bfloat16), v.to(torch.bfloat16)
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

    def check(s):
        q, k, v = (t[:1].double() for t in s)
        k = k.repeat_interleave(heads // kv_heads, 1)
        v = v.repeat_interleave(heads // kv_heads, 1)
        ref = torch.softmax(q @ k.transpose(-1, -2) / hd ** 0.5, -1) @ v
        return harness.rel_error(fn(*s)[:1], ref)
    set_bytes = 2 * b * heads * hd * 2 + 2 * b * kv_heads * ctx * hd * esz
    case = dict(name=f"attn_decode_kv{kv}_b{b}_ctx{ctx}", kernel="attention_decode", dtype="bf16", kv_dtype=kv,
                implementation="F.scaled_dot_product_attention(enable_gqa)" + (" after .to(bf16) of K, V" if kv == "fp8" else ""),
                batch=b, heads=heads, kv_heads=kv_heads, q_len=1, kv_len=ctx, head_dim=hd, bytes=set_bytes,
                flops=4 * b * heads * ctx * hd)
    return case, make_set, fn, check, set_bytes, 2e-2
