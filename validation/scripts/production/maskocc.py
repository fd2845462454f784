#!/usr/bin/env python3
"""Branch maskocc (issue 10): cuDNN's masked decode SDPA as a compiled step calls it (K / V repeated to
every query head, the StaticCache's additive bf16 mask), in-graph kernel times over the CTA count.
(A) batch 1, the split path (sdpa + lean_reduction): 8-96 heads x 948 / 1548 / 2096 keys at head dim 128,
and head dim 64 at 16 / 32 / 64 heads; (B) 32 heads x batch 2-32 (64-1024 CTAs) at 1072 / 2096 keys.
Each case: 20 calls in one CUDA graph, 3 replays under torch.profiler, every kernel's (name, us, grid,
block), the method of graphroles_probe.py (whose module body runs its own probe, so its two helpers are
repeated here). Writes OUT/maskocc.jsonl, one record a case. Nothing is fitted here.

Usage: python3 validation/scripts/production/maskocc.py OUT [BUDGET_S]
"""
import json
import os
import sys
import tempfile
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

REPS = 20
dev = torch.device("cuda")


def trace_kernels(g):
    g.replay(); torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            g.replay()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    prof.export_chrome_trace(path)
    ev = json.load(open(path)).get("traceEvents", [])
    os.remove(path)
    ks = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    return [[e["name"][:90], round(e["dur"], 3), e.get("args", {}).get("grid"), e.get("args", {}).get("block")] for e in ks]


def capture(fn):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(REPS):
            fn()
    torch.cuda.synchronize()
    return g


def cases():
    for d, heads, kvs in ((128, (8, 16, 24, 32, 40, 48, 56, 64, 80, 96), (948, 1548, 2096)), (64, (16, 32, 64), (1072,))):
        for kv in kvs:
            for h in heads:
                yield "A", 1, h, d, kv
    for kv in (1072, 2096):
        for b in (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 20, 24, 32):
            yield "B", b, 32, 128, kv


def main():
    out_dir = sys.argv[1]
    budget = float(sys.argv[2]) if len(sys.argv) > 2 else 120.0
    t0 = time.time()
    out = open(os.path.join(out_dir, "maskocc.jsonl"), "w")
    out.write(json.dumps({"kind": "meta", "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
                          "device": torch.cuda.get_device_name(0),
                          "sms": torch.cuda.get_device_properties(0).multi_processor_count}) + "\n")
    for part, b, h, d, kv in cases():
        if time.time() - t0 > budget:
            break
        rec = {"kind": "sdpa", "part": part, "batch": b, "heads": h, "head_dim": d, "kv_len": kv, "reps": REPS}
        try:
            q = torch.randn(b, h, 1, d, device=dev, dtype=torch.bfloat16)
            k = torch.randn(b, h, kv, d, device=dev, dtype=torch.bfloat16)
            v = torch.randn(b, h, kv, d, device=dev, dtype=torch.bfloat16)
            m = torch.zeros(b, 1, 1, kv, device=dev, dtype=torch.bfloat16)
            o = torch.empty(b, h, 1, d, device=dev, dtype=torch.bfloat16)

            def call():
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    o.copy_(F.scaled_dot_product_attention(q, k, v, attn_mask=m))
            ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=m.float())
            call(); torch.cuda.synchronize()
            rec["max_rel_err"] = ((o.float() - ref).abs().max() / ref.abs().max()).item()
            rec["trace"] = trace_kernels(capture(call))
            del q, k, v, m, o, ref
        except Exception as e:  # keep going
            rec["error"] = repr(e)[:300]
        rec["t"] = round(time.time() - t0, 1)
        out.write(json.dumps(rec) + "\n")
        out.flush()
        print(part, b, h, d, kv, rec.get("error", ""), rec["t"], flush=True)


if __name__ == "__main__":
    main()
