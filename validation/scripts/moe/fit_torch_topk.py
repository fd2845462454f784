#!/usr/bin/env python3
"""Branch moedef: PyTorch eager's torch.topk at decode (transformers' MoE routers), per kernel.

Usage: python3 validation/scripts/moe/fit_torch_topk.py [validation/results]

The eager steps' torch.profiler kernel sums (hf.json `top_kernels_s`, per step; one call a MoE layer)
hold torch.topk's two kernels: sbtopk::gatherTopK (a CTA a row; radixSelect's 16 dependent 2-bit
passes over the 32-bit key, each a count across the CTA's ceil(E / 32) warps) and, when the call
sorts (Qwen3-MoE, Mixtral; DeepSeek-V2 passes sorted=False), bitonicSortKVInPlace of the k values.
lib/src/kernels/moe_topk.cpp prices them as kernel_alone (the launch's share of the floor the
profiler counts) plus 16 x (c0 + c1 log2 warps) cycles and a fixed sort, at the 1980 MHz SM clock.

Fit: h200-moe's T = 1 decode steps only (the cropped-cache run; Mixtral E 8, DeepSeek-V2-Lite E 64,
Qwen3-30B-A3B E 128): c0, c1 by least squares of the per-model mean gatherTopK time on log2 warps,
the sort as the median. Held out: h200-moe's T > 1 and every decode step of h200-moe-contiguous and
h200-moe-sync; printed per step, predicted / measured - 1.
"""
import json
import math
import os
import statistics
import sys

CLOCK = 1980e6
KERNEL_ALONE = 0.508704e-6 - 0.46e-6  # eager profile: kernel_floor - harness_idle (hardware/h200.calibration.yaml)
LAYERS = {"qwen3-30b-a3b": 48, "deepseek-v2-lite": 26, "mixtral-8x7b": 32}  # MoE layers a step
EXPERTS = {"qwen3-30b-a3b": 128, "deepseek-v2-lite": 64, "mixtral-8x7b": 8}
SORTED = {"qwen3-30b-a3b": True, "deepseek-v2-lite": False, "mixtral-8x7b": True}
SORT_KEY = "float, long, at::native::GTOp"  # bitonicSortKVInPlace of the fp32 values (descending)


def per_call(step, key):
    return sum(v for n, v in step["top_kernels_s"].items() if key in n) / LAYERS[step["model"]]


def decode_steps(results, run):
    for s in json.load(open(os.path.join(results, run, "hf.json")))["steps"]:
        if s.get("ok") and s["phase"] == "decode":
            yield s


def warps(model):
    return max(1, math.ceil(EXPERTS[model] / 32))


def main(results):
    fit = [s for s in decode_steps(results, "h200-moe") if s["batch"] == 1]
    by_model = {}
    for s in fit:
        by_model.setdefault(s["model"], []).append(per_call(s, "gatherTopK") - KERNEL_ALONE)
    xs = [math.log2(warps(m)) for m in by_model]
    ys = [statistics.mean(v) for v in by_model.values()]
    xm, ym = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - xm) * (y - ym) for x, y in zip(xs, ys)) / sum((x - xm) ** 2 for x in xs)
    base = ym - slope * xm
    sort = statistics.median(per_call(s, SORT_KEY) - KERNEL_ALONE for s in fit if SORTED[s["model"]])
    c0, c1, cs = base * CLOCK / 16, slope * CLOCK / 16, sort * CLOCK
    print(f"fit on {len(fit)} T = 1 steps of h200-moe: gatherTopK {base * 1e6:.3f} us + {slope * 1e6:.3f} us a warp "
          f"doubling -> kSelectPassCycles {c0:.0f}, kSelectWarpCycles {c1:.0f}; sort {sort * 1e6:.3f} us -> kSortCycles {cs:.0f}")

    def predicted(model):  # moe_topk.cpp's constants (rounded), the two kernels only
        sel = 16 * (round(c0) + round(c1) * math.log2(warps(model))) / CLOCK + KERNEL_ALONE
        return sel, (round(cs) / CLOCK + KERNEL_ALONE) if SORTED[model] else 0.0

    print("| run | step | gatherTopK meas / pred us | err | sort meas / pred us | err | set |")
    print("| --- | --- | --- | ---: | --- | ---: | --- |")
    held = []
    for run in ("h200-moe", "h200-moe-contiguous", "h200-moe-sync"):
        for s in decode_steps(results, run):
            sel, srt = predicted(s["model"])
            g, so = per_call(s, "gatherTopK"), per_call(s, SORT_KEY)
            in_fit = run == "h200-moe" and s["batch"] == 1
            eg = sel / g - 1
            es = srt / so - 1 if so > 0 else float("nan")
            if not in_fit:
                held.append(eg)
                if so > 0:
                    held.append(es)
            print(f"| {run} | {s['model']} b{s['batch']} ctx{s['ctx']} | {g * 1e6:.2f} / {sel * 1e6:.2f} | {eg:+.1%} | "
                  f"{so * 1e6:.2f} / {srt * 1e6:.2f} | {es:+.1%} | {'fit' if in_fit else 'held out'} |")
    a = sorted(abs(e) for e in held)
    print(f"held out, {len(a)} kernel times: median |err| {statistics.median(a):.1%}, max {a[-1]:.1%}, "
          f"signed median {statistics.median(held):+.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results")
