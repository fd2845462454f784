#!/usr/bin/env python3
"""cuBLASLt's split-K rule read off its kernels (branch block11; lib/src/kernels/gemm_tiling.cpp,
kSplitKMinSlice): a tile whose grid of T CTAs leaves SMs idle runs s = min(SMs / T, K / D) ways when
that is 2 or more, else unsplit. For each depth D, counts the torch.linear cases where the rule and
the measured kernel disagree: split or not (h200-production, h200-gemm-small, h200-gemm-chain: the
kernel name says splitK) and the split count (h200-block11: name and grid, alone and in the step).
The tile is cuBLASLt's own (nvjet_sm90_tst_<weight rows>x<token rows>_...).

    python3 validation/scripts/production/gemm11_splits.py
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemm11_compare as gc  # noqa: E402

SMS = 132
SETS = ["validation/results/h200-production/kernels.json", "validation/results/h200-gemm-small/kernels.json",
        "validation/results/h200-gemm-chain/kernels.json", "validation/results/h200-gemm-chain/hf/kernels.json"]


def rule(m, n, k, tn, tm, depth):
    grid = -(-n // tn) * -(-m // tm)
    s = min(SMS // grid, k // depth)
    return s if s >= 2 else 1


def main():
    named = []  # (m, n, k, tile n, tile m, split?)
    for path in SETS:
        for c in json.load(open(os.path.join(gc.ROOT, path)))["cases"]:
            if c.get("kernel") != "gemm" or c.get("implementation") != "torch.linear":
                continue
            main_k = [x for x in c.get("kernel_names") or [] if x.startswith("nvjet")]
            t = re.search(r"tst_(\d+)x(\d+)_", main_k[0]) if main_k else None
            if t:
                named.append((c["m"], c["n"], c["k"], int(t.group(1)), int(t.group(2)), "splitK" in main_k[0]))
    iso, step = gc.load()
    counted = []  # (m, n, k, tile n, tile m, measured split)
    for src in (iso, step):
        for key, r in src.items():
            n, k = iso[key]["n"], iso[key]["k"]
            tile, split = gc.plan_of(r["name"], r["ctas"], n, key[1])
            if tile != "?":
                tn, tm = map(int, tile.split("x"))
                counted.append((key[1], n, k, tn, tm, split))
    print(f"{len(named)} named cases (split or not), {len(counted)} block11 GEMMs (split count, alone and in step)")
    print("| depth D | split or not wrong | split count wrong |")
    print("| ---: | ---: | ---: |")
    for depth in range(1024, 2049, 128):
        bad = sum((rule(m, n, k, tn, tm, depth) > 1) != s for m, n, k, tn, tm, s in named)
        bad_n = [(m, n, k, s) for m, n, k, tn, tm, s in counted if rule(m, n, k, tn, tm, depth) != s]
        print(f"| {depth} | {bad} | {len(bad_n)} {sorted(set(bad_n))[:4]} |")


if __name__ == "__main__":
    main()
