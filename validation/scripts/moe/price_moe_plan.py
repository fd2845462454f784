#!/usr/bin/env python3
"""Prices a `run_fused2.py --plan` set before its run: per point, the fused profile's MoE ops of one layer as a graph
replay (time_s) and its grouped GEMMs' kernels (device_time_s), as compare_fused2.py prices them afterwards.

    [PERFMODEL_CARD=h100-sxm] python3 validation/scripts/moe/price_moe_plan.py PLAN [perfmodel binary]

Prints `model phase T layer_us grouped_us` lines.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_fused2 import moe_prediction  # noqa: E402
from moe_plans import PLAN_TOKENS  # noqa: E402


def main(plan, binary):
    print("# model phase tokens layer_us grouped_gemm_us")
    for model, points in PLAN_TOKENS[plan].items():
        for T, phase in points:
            replay, kernels = moe_prediction(binary, dict(model=model, phase=phase, tokens=T))
            layer = sum(t for _, t in replay.values())
            grouped = sum(t for k, t in kernels.values() if k == "grouped_gemm")
            print(f"{model} {phase} {T} {layer * 1e6:.1f} {grouped * 1e6:.1f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel")
