#!/usr/bin/env python3
"""The third quantization run on one H200 (issue 12, results in validation/results/h200-quant3):
decode attention over a bf16 and an fp8 (e4m3) KV cache.

    python3 validation/scripts/quant/run_quant3.py OUT_DIR [--budget S] [--case-seconds S]

In order, OUT_DIR/quant3.json rewritten after every point so a run stopped early keeps what it
measured (`cases` in it):
  triton     triton_decode.py's split-KV decode attention reading bf16 or fp8 K/V (converted in
             registers): batch 1/4/16/64 x ctx 512/2048/8192/32768 x GQA groups 1/4/8 (32 query
             heads: 32/8/4 kv heads), head dim 128; then head dim 64 at group 4
  sdpa       PyTorch's own paths at group 4, head dim 128: SDPA over bf16 K/V, and the eager FP8-KV
             path Hugging Face users run (e4m3 K and V cast to bf16, then SDPA;
             quant_decode.kv_case)
Each case: correctness of sequence 0 against a float64 softmax(q k^T / sqrt(d)) v over the
dequantized cache (the fp8 cache's error is the kernel's, not the quantization's), then the
production harness's hot timing (CUDA graph over rotating sets > 2x L2, median of >= 5 samples).
"""
import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, HERE)
import torch  # noqa: E402

import harness  # noqa: E402
import quant_decode  # noqa: E402
import quant_gemm  # noqa: E402
import triton_decode  # noqa: E402

FP8 = torch.float8_e4m3fn
HEADS = 32
K_SCALE, V_SCALE = 0.5, 0.25  # per-tensor cache scales (exercised, not 1)


def triton_case(b, ctx, group, hd, kv, sm_count, heads=HEADS):
    """(case, make_set, fn, check, set_bytes, tol) for triton_decode.decode_attention."""
    hkv = heads // group
    esz = 1 if kv == "fp8" else 2
    ks, vs = (K_SCALE, V_SCALE) if kv == "fp8" else (1.0, 1.0)
    splits, chunk = triton_decode.plan_splits(b, hkv, ctx, sm_count)

    def make_set():
        q = torch.randn(b, heads, hd, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, hkv, ctx, hd, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, hkv, ctx, hd, device="cuda", dtype=torch.bfloat16)
        if kv == "fp8":
            k, v = k.to(FP8), v.to(FP8)
        return q, k, v

    def fn(q, k, v):
        return triton_decode.decode_attention(q, k, v, ks, vs, sm_count)

    def check(s):
        q, k, v = s
        out = fn(q, k, v)[:1].double()
        qd = q[:1].double().reshape(1, hkv, group, hd)
        kd = k[:1].double() * ks
        vd = v[:1].double() * vs
        att = torch.softmax(qd @ kd.transpose(-1, -2) / math.sqrt(hd), -1) @ vd  # 1, hkv, group, hd
        return harness.rel_error(out, att.reshape(1, heads, hd))
    kv_bytes = 2 * b * hkv * ctx * hd * esz
    set_bytes = kv_bytes + 2 * b * heads * hd * 2
    tag = "" if heads == HEADS else f"_h{heads}"
    case = dict(name=f"triton_decode_kv{kv}_b{b}_ctx{ctx}_g{group}_d{hd}{tag}", kernel="attention_decode", dtype="bf16",
                kv_dtype=kv, implementation="triton split-KV (triton_decode.py)", batch=b, heads=heads,
                kv_heads=hkv, q_len=1, kv_len=ctx, head_dim=hd, bytes=set_bytes, kv_bytes=kv_bytes,
                flops=4 * b * heads * ctx * hd, splits=splits, chunk=chunk, block_n=triton_decode.BLOCK_N,
                k_scale=ks, v_scale=vs)
    return case, make_set, fn, check, set_bytes, quant_gemm.TOL["bf16"]


def plan():
    out = []
    for hd, groups in ((128, (1, 4, 8)), (64, (4,))):
        for ctx in (512, 2048, 8192, 32768):
            for b in (1, 4, 16, 64):
                for g in groups:
                    out += [("triton", b, ctx, g, hd, kv) for kv in ("bf16", "fp8")]
        if hd == 128:  # PyTorch's own paths before head dim 64
            for ctx in (512, 2048, 8192, 32768):
                for b in (1, 4, 16, 64):
                    out += [("sdpa", b, ctx, kv) for kv in ("bf16", "fp8")]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=150.0)
    ap.add_argument("--case-seconds", type=float, default=0.03)
    ap.add_argument("--skip", default="", help="a results file whose correct, timed cases are not run again")
    ap.add_argument("--name", default="quant3", help="OUT_DIR/NAME.json")
    a = ap.parse_args()
    log, meta, t0 = quant_gemm.start_run(a.out, "run.log", a.case_seconds)
    import triton
    meta["triton"] = triton.__version__
    sm_count = meta["device"]["sm_count"]
    log(f"meta {json.dumps(meta)}")
    res = {"schema_version": 1, "meta": meta, "cases": []}

    def save():
        with open(f"{a.out}/{a.name}.json.tmp", "w") as f:
            json.dump(res, f, indent=1)
        os.replace(f"{a.out}/{a.name}.json.tmp", f"{a.out}/{a.name}.json")
    done = set()
    if a.skip:
        done = {c["name"] for c in json.load(open(a.skip))["cases"] if c.get("ok") and c.get("correct")}
    seen = set()
    for it in plan():
        if it[0] == "triton" and f"triton_decode_kv{it[5]}_b{it[1]}_ctx{it[2]}_g{it[3]}_d{it[4]}" in done:
            continue
        if time.perf_counter() > t0 + a.budget:
            log("budget spent: stopping")
            break
        try:
            if it[0] == "triton":
                spec = triton_case(*it[1:], sm_count)
            else:
                spec = quant_decode.kv_case(it[1], it[2], it[3], heads=HEADS, kv_heads=8, hd=128)
        except Exception as e:
            res["cases"].append(dict(name=str(it), ok=False, correct=False, error=f"{type(e).__name__}: {str(e)[:300]}"))
            save()
            continue
        # kernel names once per kind of kernel (the profiler costs time)
        kind = (it[0], it[-1]) + (tuple(it[3:5]) if it[0] == "triton" else ())
        first = kind not in seen or it[2] == 512 and it[1] == 1
        seen.add(kind)
        out = quant_gemm.run_one(*spec, a.case_seconds, want_kernels=first)
        res["cases"].append(out)
        log(f"{out['name']} {out['measured_s']} rel {out.get('max_rel_error')} k={out.get('kernels_per_launch')} "
            f"{out['error']}")
        save()
        torch.cuda.empty_cache()
    log("done")


if __name__ == "__main__":
    main()
