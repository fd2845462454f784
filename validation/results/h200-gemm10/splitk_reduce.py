"""cuBLASLt's splitKreduce kernel alone in h200-gemm-chain's profiled replays: median duration per (model, M, the
split kernel before it). The block prices every split-K plan's reduce at split_k_reduce = 3.5 us.

    python3 validation/results/h200-gemm10/splitk_reduce.py   (from the repository root)
"""
import collections
import gzip
import json
import statistics

d = json.load(gzip.open("validation/results/h200-gemm-chain/chain.json.gz"))
agg = collections.defaultdict(list)
for p in d["points"]:
    ks = p["kernels"]
    for i, k in enumerate(ks):
        if "splitKreduce" in k["name"] and i:
            agg[(p["model"], p["m"], ks[i - 1]["name"][:52])].append(k["dur_us"])
for key, v in sorted(agg.items()):
    print(f"{key[0]:10s} M={key[1]:3d} after {key[2]:52s} n={len(v):3d} median {statistics.median(v):.3f} us")
