#!/usr/bin/env python3
"""Tables validation/results/h200-fused-gaps/gaps.jsonl (fused_gaps.py): per point, the graph replay
(CUDA events, unprofiled), the profiled replay's kernel sum and span (first kernel's start to the last
one's end), and the GPU idle before each kernel by what the kernel is.

    python3 validation/scripts/production/fused_gaps_table.py validation/results/h200-fused-gaps/gaps.jsonl
"""
import json
import statistics
import sys


def family(name):
    n = name.lower()
    if "splitkreduce" in n:
        return "splitKreduce"
    if "nvjet" in n or "gemm" in n or "cutlass" in n:
        return "gemm"
    if "triton" in n:
        return "triton"
    if "cudnn" in n or "fmha" in n or "flash" in n:
        return "attention"
    return "other"


def main(path):
    print("| point | graph replay us | profiled kernels us | profiled span us | replay - span us | gaps us | "
          "gap before gemm / triton / attention / splitKreduce, median us |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for line in open(path):
        r = json.loads(line)
        if r.get("kind") != "point":
            continue
        t = r["trace"]
        by = {}
        for x in t[1:]:
            by.setdefault(family(x[0]), []).append(x[2])
        kernels = sum(x[1] for x in t)
        gaps = sum(x[2] for x in t[1:])
        span = kernels + gaps
        graph = r["device_s"] * 1e6
        med = " / ".join(f"{statistics.median(by[f]):.2f}" if f in by else "-"
                         for f in ("gemm", "triton", "attention", "splitKreduce"))
        print(f"| {r['model']} b{r['batch']} ctx{r['ctx']} | {graph:.0f} | {kernels:.0f} | {span:.0f} | "
              f"{graph - span:+.0f} | {gaps:.0f} ({len(t) - 1} boundaries) | {med} |")


if __name__ == "__main__":
    main(sys.argv[1])
