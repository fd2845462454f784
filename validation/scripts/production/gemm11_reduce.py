#!/usr/bin/env python3
"""cuBLASLt's splitKreduce kernel as measured (validation/results/h200-block11, branch block11): its
floor, with the output written and each split's fp32 partials read at the card's read rate
(hardware/h200.calibration.yaml read_bandwidth; lib/src/cost/gemm_cost.cpp prices it so).

The floor is the one fitted number: the median of (duration - bytes / read rate) over the reduce
kernels of Llama-3-8B's and Qwen2.5-7B's GEMMs alone (gemm11_iso.py, 28 kernels); TinyLlama's (8) and
every reduce inside the fused step (fused_gaps.py's traces, 36) are held out.

    python3 validation/scripts/production/gemm11_reduce.py
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemm11_compare as gc  # noqa: E402

READ_GBPS = 4658.4  # hardware/h200.calibration.yaml read_bandwidth
FIT_MODELS = ("llama3_8b", "qwen25_7b")


def main():
    iso, step = gc.load()
    pts = []
    for key, i in iso.items():
        if i["reduce"] <= 0:
            continue
        _, split = gc.plan_of(i["name"], i["ctas"], i["n"], key[1])
        m, n = key[1], i["n"]
        mb = (split * m * n * 4 + m * n * 2) / 1e6  # partials read + output written
        pts.append((key, split, mb, i["reduce"], step.get(key, {}).get("reduce")))
    per_mb = 1e3 / READ_GBPS
    floor = statistics.median(p[3] - per_mb * p[2] for p in pts if p[0][0] in FIT_MODELS)
    print(f"floor {floor:.3f} us (median over {sum(p[0][0] in FIT_MODELS for p in pts)} fitted kernels), "
          f"partials at {READ_GBPS:.0f} GB/s")
    for label, sel in (("fitted (Llama-3-8B, Qwen2.5-7B), alone", lambda p: p[0][0] in FIT_MODELS),
                       ("held out (TinyLlama), alone", lambda p: p[0][0] not in FIT_MODELS)):
        e = [abs((floor + per_mb * p[2]) / p[3] - 1) for p in pts if sel(p)]
        print(f"{label}: {len(e)} kernels, median {100 * statistics.median(e):.1f} %, max {100 * max(e):.1f} %")
    e = [abs((floor + per_mb * p[2]) / p[4] - 1) for p in pts if p[4]]
    print(f"held out: every reduce inside the fused step (median over its layers): {len(e)} GEMMs, "
          f"median {100 * statistics.median(e):.1f} %, max {100 * max(e):.1f} %")
    flat = [abs(3.5 / p[4] - 1) for p in pts if p[4]]
    print(f"gemm5's flat 3.5 us against the same: median {100 * statistics.median(flat):.1f} %, max {100 * max(flat):.1f} %")


if __name__ == "__main__":
    main()
