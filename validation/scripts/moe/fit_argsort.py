#!/usr/bin/env python3
"""PyTorch's argsort in transformers 5's eager MoE experts, from the profiled top kernels (branch gemm11).

Past 4096 keys, argsort runs cub's DeviceRadixSort over the int64 keys: 64 key bits / 8 bits a pass
= 8 DeviceRadixSortOnesweepKernel passes a sort, two sorts a MoE layer (perm and inv_perm).
Fits the pass time lib/src/kernels/moe_permute.cpp's kOnesweepPassSeconds holds: the mean of the
passes of Qwen3-30B-A3B's and DeepSeek-V2-Lite's b1 prefill on h200-moe-contiguous (moe2's fit
steps); every other onesweep row (their b4, Mixtral's b4, the h200-moe and h200-moe-sync runs of
all six) is held out. Then the in-place sorts (<= 4096 keys) of the decode steps and Mixtral's
prefill b1: kBitonicSortSeconds, kInPlaceRadixFixedSeconds, kInPlaceRadixItemPassSeconds.

usage: python3 validation/scripts/moe/fit_argsort.py   (from the repository root)
"""
import json
import statistics

RUNS = ["h200-moe-contiguous", "h200-moe-sync", "h200-moe"]
TOP_K = {"qwen3-30b-a3b": 8, "deepseek-v2-lite": 6, "mixtral-8x7b": 2}
MOE_LAYERS = {"qwen3-30b-a3b": 48, "deepseek-v2-lite": 26, "mixtral-8x7b": 32}
PASSES = 64 // 8  # int64 keys, 8-bit onesweep digits
FIT = {("h200-moe-contiguous", "qwen3-30b-a3b", 1), ("h200-moe-contiguous", "deepseek-v2-lite", 1)}


def rows():
    for run in RUNS:
        for s in json.load(open(f"validation/results/{run}/hf.json"))["steps"]:
            if not s.get("ok"):
                continue
            keys = s["batch"] * (s["ctx"] if s["phase"] == "prefill" else 1) * TOP_K[s["model"]]
            for name, t in s["top_kernels_s"].items():
                yield run, s, keys, name, t


def main():
    fit, held = [], []
    print("| run | step | keys | onesweep total | passes | us a pass | set |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for run, s, keys, name, t in rows():
        if "DeviceRadixSortOnesweepKernel" not in name:
            continue
        passes = 2 * PASSES * MOE_LAYERS[s["model"]]
        per = t / passes
        is_fit = (run, s["model"], s["batch"]) in FIT
        (fit if is_fit else held).append((run, s, per))
        print(f"| {run} | {s['model']} {s['phase']} b{s['batch']} | {keys} | {t * 1e3:.3f} ms | {passes} | "
              f"{per * 1e6:.3f} | {'fit' if is_fit else 'held out'} |")
    pass_s = statistics.mean(p for _, _, p in fit)
    print(f"\nfitted pass time: {pass_s * 1e6:.3f} us (mean of {len(fit)} fit steps)")
    errs = [pass_s / p - 1 for _, _, p in held]
    print(f"held out ({len(errs)} rows): |err| median {statistics.median(abs(e) for e in errs) * 100:.1f} %, "
          f"max {max(abs(e) for e in errs) * 100:.1f} %, mean signed {statistics.mean(errs) * 100:+.1f} %")

    # In-place sorts (<= 4096 keys): bitonic up to 32 keys (flat), cub's BlockRadixSort beyond:
    # fixed + 16 digit passes x items a thread x per item. Fit: Qwen3's and DeepSeek's decode
    # steps on h200-moe-contiguous (tests/test_moe_accuracy.cpp's fit set); the rest held out.
    inplace = []
    for run, s, keys, name, t in rows():
        if "SortKVInPlace" not in name or "long, long" not in name:
            continue  # topk's float sort is topk's
        args = [a.strip() for a in name.split("<")[1].split(",")[:4]]
        kind = ("bitonic" if name.split("<")[0].split("::")[-1] == "bitonicSortKVInPlace" else "radix") + \
            f"<{args[2]}, {args[3]}>"
        per = t / (2 * MOE_LAYERS[s["model"]])
        is_fit = run == "h200-moe-contiguous" and s["phase"] == "decode" and s["model"] != "mixtral-8x7b"
        inplace.append((run, s, keys, kind, int(args[3]), per, is_fit))
    bitonic = statistics.mean(p for *_, k, _, p, f in inplace if f and k.startswith("bitonic"))
    m4 = statistics.mean(p for *_, k, _, p, f in inplace if f and k == "radix<32, 4>")
    m32 = statistics.mean(p for *_, k, _, p, f in inplace if f and k == "radix<32, 32>")
    digit_passes = 64 // 4
    item = (m32 - m4) / (digit_passes * (32 - 4))
    fixed = m4 - digit_passes * 4 * item
    print(f"\nin-place: bitonic {bitonic * 1e6:.3f} us; radix fixed {fixed * 1e6:.3f} us + "
          f"{digit_passes} passes x items x {item * 1e9:.2f} ns")
    print("| run | step | keys | kernel | us a sort | priced | err | set |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    errs = []
    for run, s, keys, kind, items, per, is_fit in inplace:
        priced = bitonic if kind.startswith("bitonic") else fixed + digit_passes * items * item
        e = priced / per - 1
        if not is_fit:
            errs.append(e)
        print(f"| {run} | {s['model']} {s['phase']} b{s['batch']} ctx{s['ctx']} | {keys} | {kind} | {per * 1e6:.2f} | "
              f"{priced * 1e6:.2f} | {e * 100:+.1f} % | {'fit' if is_fit else 'held out'} |")
    print(f"held out ({len(errs)} rows): |err| median {statistics.median(abs(e) for e in errs) * 100:.1f} %, "
          f"p90 {sorted(abs(e) for e in errs)[int(0.9 * (len(errs) - 1))] * 100:.1f} %, max {max(abs(e) for e in errs) * 100:.1f} %")


if __name__ == "__main__":
    main()
