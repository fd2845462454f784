#!/usr/bin/env python3
"""Measured against predicted monotonicity of decode attention (h200-decode-monotone).

For each (KV heads, head dim) of the grid, every step up in batch or context: does the measured
SDPA flash time drop (by more than 0.5 %), does `perfmodel op --impl fused` predict a drop, and
the per-case error. Usage:
  python3 validation/scripts/production/compare_decode_monotone.py [results dir] [perfmodel binary]
"""
import json
import statistics
import subprocess
import sys

SLACK = 0.005


def predict(exe, c):
    out = subprocess.run([exe, "op", "--card", "h200", "--impl", "fused", "--kind", "attention_decode",
                          "--batch", str(c["batch"]), "--heads", str(c["heads"]), "--kv-heads", str(c["kv_heads"]),
                          "--kv-len", str(c["kv_len"]), "--head-dim", str(c["head_dim"]), "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["time_s"]


def main(folder, exe):
    cases = json.load(open(f"{folder}/kernels.json"))["cases"]
    meas, pred = {}, {}
    for c in cases:
        key = (c["kv_heads"], c["head_dim"], c["batch"], c["kv_len"])
        meas[key], pred[key] = c["measured_s"], predict(exe, c)
    batches = sorted({k[2] for k in meas})
    contexts = sorted({k[3] for k in meas})
    both = only_measured = only_predicted = steps = 0
    print("| KV heads | head dim | step | measured us | predicted us |")
    print("| ---: | ---: | --- | --- | --- |")
    for kvh, d in sorted({(k[0], k[1]) for k in meas}):
        for i, b in enumerate(batches):
            for j, l in enumerate(contexts):
                for prev, what in (((kvh, d, batches[i - 1], l), f"b{batches[i - 1]}->b{b} ctx{l}") if i else (None, ""),
                                   ((kvh, d, b, contexts[j - 1]), f"ctx{contexts[j - 1]}->ctx{l} b{b}") if j else (None, "")):
                    if prev is None:
                        continue
                    cur = (kvh, d, b, l)
                    steps += 1
                    m = meas[cur] < meas[prev] * (1 - SLACK)
                    p = pred[cur] < pred[prev] * (1 - SLACK)
                    both += m and p
                    only_measured += m and not p
                    only_predicted += p and not m
                    if m or p:
                        print(f"| {kvh} | {d} | {what} | {meas[prev] * 1e6:.2f} -> {meas[cur] * 1e6:.2f}"
                              f"{' (drop)' if m else ''} | {pred[prev] * 1e6:.2f} -> {pred[cur] * 1e6:.2f}"
                              f"{' (drop)' if p else ''} |")
    errs = [abs(pred[k] / meas[k] - 1) for k in meas]
    print()
    print(f"{len(meas)} cases: |error| median {statistics.median(errs):.1%}, "
          f"p90 {sorted(errs)[int(0.9 * (len(errs) - 1))]:.1%}")
    print(f"{steps} steps up in batch or context: drops measured and predicted {both}, measured only "
          f"{only_measured}, predicted only {only_predicted}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-decode-monotone",
         sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel")
