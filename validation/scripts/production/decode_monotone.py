#!/usr/bin/env python3
"""Does production decode attention get faster as the batch or the context grows? (issue 14)

The fused profile's decode attention (FlashAttention-2's split rule, production_decode_cost.cpp)
drops in places as the batch or the context grows: the rule picks fewer splits for the larger
shape. This times PyTorch's SDPA flash backend (FlashAttention-2 with its split-KV heuristic,
what the profile's decode parameters were fitted on, h200-production) on a grid around those
shapes, with the production driver's harness (correctness first, CUDA graphs, rotating sets).

Usage: python3 validation/scripts/production/decode_monotone.py OUT [--budget S]
Writes OUT/kernels.json (the backend's result format, read by `perfmodel accuracy`).
"""
import argparse
import datetime
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import attention  # noqa: E402
import harness  # noqa: E402

# (KV heads, head dim) where the model's grid dropped (tests/test_properties.cpp); MHA (the
# flash kernel packs a GQA group into one CTA, so the query heads per KV head do not matter).
SHAPES = [(1, 64), (1, 128), (2, 64), (2, 128), (4, 64), (4, 128), (5, 64), (5, 128), (10, 128)]
BATCHES = [1, 2, 3, 4, 8]
CONTEXTS = [2048, 3000, 4096, 8192, 16384]
# The issue's own example: Qwen2.5-0.5B's attention (14 query heads, 2 KV heads, head dim 64) at
# 24576 keys, batch 1 to 4 (`--qwen`).
QWEN = [(14, 2, 64, b, 24576) for b in (1, 2, 3, 4)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=200.0)
    ap.add_argument("--case-seconds", type=float, default=0.15)
    ap.add_argument("--qwen", action="store_true", help="only the issue's Qwen2.5-0.5B example")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    torch.cuda.set_device(0)
    harness.init()
    meta = {"device": harness.device_meta(), "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "harness": "perfmodel production driver (validation/scripts/production/harness.py)"}
    result = {"schema_version": 1, "meta": meta, "summary": {}, "cases": []}
    grid = QWEN if a.qwen else [(kvh, kvh, d, b, ctx) for kvh, d in SHAPES for b in BATCHES for ctx in CONTEXTS]
    for h, kvh, d, b, ctx in grid:
        if time.perf_counter() - t0 > a.budget:
            break
        case, make_set, fn, check, set_bytes = attention._case("flash", "decode", b, h, kvh, 1, ctx, d)
        r = harness.run_case(case, make_set, fn, check, set_bytes, a.case_seconds)
        result["cases"].append(r)
        save(a.out, result)
        print(f"[{time.perf_counter() - t0:6.1f}s] {r['name']}: ok {r['ok']} "
              f"{(r.get('measured_s') or 0) * 1e6:.2f} us", flush=True)
    save(a.out, result)


def save(out, result):
    """After every case, so a run cut short keeps what it measured."""
    cs = result["cases"]
    result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs)}
    with open(f"{out}/kernels.json.tmp", "w") as f:
        json.dump(result, f, indent=1)
    os.replace(f"{out}/kernels.json.tmp", f"{out}/kernels.json")


if __name__ == "__main__":
    main()
