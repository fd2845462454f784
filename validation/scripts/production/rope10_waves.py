#!/usr/bin/env python3
"""The rope kernels of validation/results/h200-rope10/rope10.json.gz against the wave model of
lib/src/cost/inductor_waves.cpp, with each kernel's own block read off its launch (elements /
grid), and the same kernels inside h200-fused-step-cudnn's full-depth prefill steps (branch rope10).

    python3 validation/scripts/production/rope10_waves.py [rope10.json.gz] [calibration.yaml]

Wave model (nothing fitted on these kernels): waves = ceil(CTAs / (SMs x 2048 / 128 threads)),
time = kernel floor alone (kernel_floor - the fused profile's harness_idle) + waves x (pass_latency
+ thread_chain of the kernel: rotary for q's and k's kernels, kv_append for v's), the card-level
keys of hardware/h200.calibration.yaml (fitted on tiny single kernels, not on these). Error =
predicted / measured - 1.
"""
import gzip
import json
import math
import os
import re
import statistics
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
RES = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "validation/results/h200-rope10/rope10.json.gz")
CAL = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "hardware/h200.calibration.yaml")
SWEEP = os.path.join(ROOT, "validation/results/h200-fused-step-cudnn/results.jsonl")
SMS, SLOTS_PER_SM = 132, 2048 // 128


def key_us(text, key, section=None):
    """A `key: value us` line of the calibration (first match, optionally after `section:`)."""
    if section:
        text = text[text.index(section + ":"):]
    return float(re.search(rf"^\s*{key}:\s*([0-9.eE+-]+)\s*us", text, flags=re.M).group(1)) * 1e-6


def kind(name):
    """q / k / v of the dynamic-shape rope graph (the prefill kernels), None otherwise."""
    if name.endswith("unsqueeze_view_2"):
        return "q"
    if name.endswith("unsqueeze_view_0") and "index_put" not in name:
        return "k"
    if name.endswith("index_put_split_with_sizes_view_1"):
        return "v"
    return None


def main():
    cal = open(CAL).read()
    floor = key_us(cal, "kernel_floor") - key_us(cal, "harness_idle", "profiles")
    first = key_us(cal, "pass_latency")
    chain = {"q": key_us(cal, "rotary", "thread_chain"), "k": key_us(cal, "rotary", "thread_chain"),
             "v": key_us(cal, "kv_append", "thread_chain")}
    d = json.load(gzip.open(RES, "rt") if RES.endswith(".gz") else open(RES))
    sweep = {}
    for line in open(SWEEP):
        r = json.loads(line)
        if r.get("kind") == "point" and r["phase"] == "prefill":
            for n, t in r["top_kernels_s"].items():
                if kind(n):
                    sweep[(r["model"], r["ctx"], kind(n))] = t / r["layers"] * 1e6
    print("| model | tokens | kernel | XBLOCK | CTAs | waves | alone us | in step (2 layers) us | predicted us | err alone | "
          "full step us (h200-fused-step-cudnn) | full / 2-layer step |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    errs, ratios = [], []
    for row in d["rows"]:
        if row["variant"] != "seq":  # fresh hit the FX graph cache: the same kernels (README)
            continue
        h, kvh, hd, t = row["heads"], row["kv_heads"], row["head_dim"], row["tokens"]
        elems = {"q": t * h * hd, "k": t * kvh * hd, "v": t * kvh * hd}
        step = row.get("step", {}).get("kernels", {})
        for name, v in sorted(row["alone"]["kernels"].items(), key=lambda kv: kind(kv[0]) or ""):
            k = kind(name)
            if not k:
                continue
            grid = v[2][0]
            waves = math.ceil(grid / (SMS * SLOTS_PER_SM))
            pred = (floor + waves * (first + chain[k])) * 1e6
            err = pred / v[0] - 1
            if t >= 2048:
                errs.append(abs(err))
            full = sweep.get((row["model"], t, k))
            in_step = step.get(name, [None])[0]
            ratio = full / in_step if full and in_step else None
            if ratio:
                ratios.append(ratio)
            print(f"| {row['model']} | {t} | {k} | {elems[k] // grid} | {grid} | {waves} | {v[0]:.2f} | "
                  f"{in_step if in_step is None else round(in_step, 2)} | {pred:.2f} | {err * 100:+.1f}% | "
                  f"{'' if full is None else round(full, 1)} | {'' if ratio is None else round(ratio, 2)} |")
    print(f"\nwave model, kernels at 2048-4096 tokens ({len(errs)}): median abs {statistics.median(errs) * 100:.1f} %, "
          f"max {max(errs) * 100:.1f} %")
    print(f"full-depth step / 2-layer step, same kernel ({len(ratios)}): median {statistics.median(ratios):.2f}, "
          f"range {min(ratios):.2f}-{max(ratios):.2f}")


if __name__ == "__main__":
    main()
