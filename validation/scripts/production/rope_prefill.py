#!/usr/bin/env python3
"""Inductor's prefill rotary + KV write (fused_step.py's _rope_kv) in isolation, and TinyLlama-class
F.linear shapes at M 256-1024 (branch gemm7, issue 10).

    python3 validation/scripts/production/rope_prefill.py OUT_DIR

rope: each model's (heads, kv_heads, head_dim) at 512/2048/4096 tokens, compiled three ways:
  dynamic  fused_step.py's function, warmed at decode and prefill sizes first, so the token and
           cache dims are dynamic (automatic dynamic shapes), as in h200-fused-step-cudnn;
  static   the same function, torch.compile(dynamic=False): one graph per shape;
  nogather dynamic, with cos/sin passed per token (no cos_sin[pos] gather) and no cache scatter.
Kernel times: torch.profiler device durations (mean over 20 calls, 4 rotating input sets);
correctness: the compiled q and caches against the eager function. The generated Triton source of
the dynamic variant: run with TORCH_LOGS=output_code (stderr).
gemm: F.linear bf16, kernel names and device durations the same way.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fused_step import _rope_kv, _cos_sin  # noqa: E402

OUT = sys.argv[1]
BF16 = torch.bfloat16
MODELS = {"tinyllama": (32, 4, 64), "qwen2.5-7b": (28, 4, 128), "llama3-8b": (32, 8, 128)}
TOKENS = (512, 2048, 4096)


def _rope_nogather(qkv, cos, sin, heads: int, kv_heads: int, head_dim: int):
    t, half = qkv.shape[0], head_dim // 2
    q, k, v = qkv.split([heads * head_dim, kv_heads * head_dim, kv_heads * head_dim], dim=-1)
    c, s = cos[:, None, :], sin[:, None, :]

    def rot(x):
        x = x.float()
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(qkv.dtype)
    return rot(q.reshape(t, heads, head_dim)), rot(k.reshape(t, kv_heads, head_dim))


def inputs(h, kvh, d, t, ctx):
    w = (h + 2 * kvh) * d
    qkv = torch.randn(t, w, device="cuda", dtype=BF16)
    pos = torch.arange(ctx, device="cuda").repeat(t // ctx) if t >= ctx else torch.full((t,), ctx - 1, device="cuda")
    slots = torch.arange(t, device="cuda") if t >= ctx else torch.arange(t, device="cuda") * ctx + ctx - 1
    nslots = max(t, t * ctx) if t < ctx else t
    kc = torch.randn(nslots, kvh, d, device="cuda", dtype=BF16)
    vc = torch.randn(nslots, kvh, d, device="cuda", dtype=BF16)
    return qkv, _cos_sin(ctx, d), pos, slots, kc, vc


def profile(fn, sets, reps=20):
    for s in sets:
        fn(*s)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for i in range(reps):
            fn(*sets[i % len(sets)])
        torch.cuda.synchronize()
    out = {}
    for e in prof.key_averages():
        if e.device_type == torch.autograd.DeviceType.CUDA and e.count > 0:
            out[e.key] = [getattr(e, "device_time_total", getattr(e, "cuda_time_total", 0)) / reps, e.count / reps]
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "rope": [], "gemm": []}
    for name, (h, kvh, d) in MODELS.items():
        torch._dynamo.reset()
        torch._dynamo.config.cache_size_limit = 64
        dyn = torch.compile(_rope_kv, fullgraph=True)
        # warm as the sweep does: decode sizes first, then prefill sizes -> dynamic token/cache dims
        for b, ctx in ((1, 512), (8, 512), (1, 2048)):
            qkv, cs, pos, slots, kc, vc = inputs(h, kvh, d, b, ctx)
            dyn(qkv, cs, pos, slots, kc, vc, h, kvh, d)
        for t in TOKENS:
            sets = [inputs(h, kvh, d, t, t) for _ in range(4)]
            args = [(*s, h, kvh, d) for s in sets]
            # correctness against eager
            ref_k, ref_v = sets[0][4].clone(), sets[0][5].clone()
            q_ref = _rope_kv(sets[0][0], sets[0][1], sets[0][2], sets[0][3], ref_k, ref_v, h, kvh, d)
            q = dyn(*args[0])
            err = float((q.float() - q_ref.float()).abs().max()), float((sets[0][4].float() - ref_k.float()).abs().max())
            row = {"model": name, "heads": h, "kv_heads": kvh, "head_dim": d, "tokens": t, "max_abs_err": err}
            row["dynamic"] = profile(dyn, args)
            st = torch.compile(_rope_kv, fullgraph=True, dynamic=False)
            row["static"] = profile(st, args)
            ng = torch.compile(_rope_nogather, fullgraph=True)
            nsets = []
            for s in sets:
                cs = s[1][s[2]]
                nsets.append((s[0], cs[:, : d // 2].contiguous(), cs[:, d // 2:].contiguous(), h, kvh, d))
            row["nogather"] = profile(ng, nsets)
            res["rope"].append(row)
            print(name, t, err, {k[:60]: round(v[0], 2) for k, v in row["dynamic"].items()}, flush=True)
            print("   static", {k[:60]: round(v[0], 2) for k, v in row["static"].items()}, flush=True)
            print("   nogather", {k[:60]: round(v[0], 2) for k, v in row["nogather"].items()}, flush=True)
            json.dump(res, open(os.path.join(OUT, "rope_gemm.json"), "w"), indent=1)
    # TinyLlama / Llama-3.2-1B / Qwen2.5-0.5B projections at M 256-1024
    shapes = [("tinyllama_qkv", 2560, 2048), ("tinyllama_o", 2048, 2048), ("tinyllama_gateup", 11264, 2048),
              ("tinyllama_down", 2048, 5632), ("l32_1b_gateup", 16384, 2048), ("q25_05b_qkv", 1152, 896),
              ("q25_05b_down", 896, 4864)]
    for tag, n, k in shapes:
        for m in (256, 512, 1024):
            xs = [(torch.randn(m, k, device="cuda", dtype=BF16), torch.randn(n, k, device="cuda", dtype=BF16) / k ** 0.5)
                  for _ in range(4)]
            ref = xs[0][0].float() @ xs[0][1].float().t()
            e = float(((F.linear(*xs[0]).float() - ref).abs().max() / ref.abs().max()))
            row = {"tag": tag, "m": m, "n": n, "k": k, "rel_err": e, "kernels": profile(F.linear, xs, reps=40)}
            res["gemm"].append(row)
            print(tag, m, n, k, e, {kk[:50]: round(v[0], 2) for kk, v in row["kernels"].items()}, flush=True)
            json.dump(res, open(os.path.join(OUT, "rope_gemm.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
