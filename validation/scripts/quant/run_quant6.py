#!/usr/bin/env python3
"""quant6's run on one H200 (issue 12, results in validation/results/h200-quant6): new shapes,
held out, for the three rules quant6 set before this run (lib/src/cost/quant_gemm_cost.cpp and
lib/src/cost/kv_cache_cost.cpp), none of them in any fit:

    python3 validation/scripts/quant/run_quant6.py OUT_DIR [--budget S] [--case-seconds S]

In order (OUT_DIR/quant6.json rewritten after every case; the run stops at --budget seconds):
  block  block-scaled FP8 torch._scaled_mm (quant_w8a8.py) on down projections whose outputs are
         small and K long, around the split-K rule's edges (K 6144..13824, N 1536..5120, M = 1,
         32, 48, 64, 96, 128), plus shapes the rule never splits; kernel grids recorded (the split
         count is the grid over the unsplit tiles)
  int8   torch._int_mm alone on wide gate/ups and long-K downs at M = 1..1024 (the tile rule's
         128x256 from 128 rows on); kernel names and grids recorded
  kv     triton_decode.py's split-KV decode reading bf16 or fp8 K/V at GQA groups and head counts
         h200-quant3 did not have (32 heads / group 2, 28 / group 7, 64 / group 8), head dim 128,
         batch 2 / 8 / 32, ctx 1024 / 4096 / 16384
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, HERE)
import torch  # noqa: E402

import quant_gemm  # noqa: E402
import quant_w8a8  # noqa: E402
import run_quant3  # noqa: E402
import run_quant5  # noqa: E402

# (model, tag, N, K): models' down projections (N = hidden, K = intermediate) and a few shapes
# the split rule never splits (K < 8192).
BLOCK_SHAPES = (
    ("llama3.2-1b", "down", 2048, 8192),
    ("qwen2.5-1.5b", "down", 1536, 8960),
    ("qwen2.5-3b", "down", 2048, 11008),
    ("qwen3-4b", "down", 2560, 9728),
    ("qwen3-8b", "down", 4096, 12288),
    ("qwen2.5-14b", "down", 5120, 13824),
    ("qwen3-1.7b", "down", 2048, 6144),
)
BLOCK_MS = (1, 32, 48, 64, 96, 128)
BLOCK_UNSPLIT = (("qwen2.5-14b", "o", 5120, 5120), ("qwen3-8b", "qkv", 6144, 4096), ("llama3.2-1b", "gateup", 16384, 2048))
INT8_SHAPES = (
    ("qwen2.5-14b", "gateup", 27648, 5120),
    ("qwen3-8b", "gateup", 24576, 4096),
    ("qwen3-32b", "gateup", 51200, 5120),
    ("qwen3-32b", "down", 5120, 25600),
    ("qwen2.5-14b", "down", 5120, 13824),
    ("qwen3-8b", "o", 4096, 4096),
)
INT8_MS = (1, 32, 64, 96, 128, 192, 256, 1024)
# (heads, group): 16 / 4 / 8 KV heads
KV_CONFIGS = ((32, 2), (28, 7), (64, 8))


def plan():
    out = []
    for model, tag, n, k in BLOCK_SHAPES:
        out += [("block", model, tag, n, k, m) for m in BLOCK_MS]
    for model, tag, n, k in BLOCK_UNSPLIT:
        out += [("block", model, tag, n, k, m) for m in (1, 64)]
    for model, tag, n, k in INT8_SHAPES:
        out += [("int8", model, tag, n, k, m, False) for m in INT8_MS]
    for heads, group in KV_CONFIGS:
        for ctx in (1024, 4096, 16384):
            for b in (2, 8, 32):
                out += [("kv", b, ctx, group, 128, kv, heads) for kv in ("bf16", "fp8")]
    return out


def make(it, sm_count):
    if it[0] == "kv":
        b, ctx, group, hd, kv, heads = it[1:]
        return run_quant3.triton_case(b, ctx, group, hd, kv, sm_count, heads=heads)
    return run_quant5.make(it)  # block or int8, with the kernel grids


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=120.0)
    ap.add_argument("--case-seconds", type=float, default=0.04)
    a = ap.parse_args()
    log, meta, t0 = quant_gemm.start_run(a.out, "run.log", a.case_seconds)
    import triton
    meta["triton"] = triton.__version__
    sm_count = meta["device"]["sm_count"]
    log(f"meta {json.dumps(meta)}")
    res = {"schema_version": 1, "meta": meta, "cases": []}

    def save():
        for c in res["cases"]:
            c.update(run_quant5.GRIDS.get(c.get("name"), {}))
        with open(f"{a.out}/quant6.json.tmp", "w") as f:
            json.dump(res, f, indent=1)
        os.replace(f"{a.out}/quant6.json.tmp", f"{a.out}/quant6.json")
    items = plan()
    log(f"{len(items)} cases")
    quant_gemm.measure_items(items, lambda it: make(it, sm_count), res["cases"], log, save, t0 + a.budget,
                             a.case_seconds)
    save()
    log("done")
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
