#!/usr/bin/env python3
"""fp8cap10's probe of the row-scaled FP8 kernel at 128 rows between 80 and 224 CTAs (issue 12,
results in validation/results/h200-fp8cap10): is the one-wave prologue paid on top of the weight
stream there (h200-quant2's N = 16384, 128 CTAs, ran 22.3 us where stream + prologue is 28)?

    python3 validation/scripts/quant/run_fp8cap10.py OUT_DIR [--budget S]

torch._scaled_mm row-wise (quant_gemm.gemm_case "fp8_row", the h200-quant2 sweep's cases) at
M = 128, K = 4096 over N = 8192..28672 (64..224 CTAs of 128x128), K = 8192 at three N, and M = 16
at two N; the harness of quant_gemm.py (correctness first, CUDA-graph replay, rotating buffers).
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, HERE)
import quant_gemm  # noqa: E402

NS_4096 = (10240, 12288, 14336, 16384, 16896, 18432, 20480, 24576)
NS_8192 = (12288, 16384, 16896)


def plan():
    out = [("sweep", f"n{n}", n, 4096, 128, "fp8_row") for n in NS_4096]
    out += [("sweep", f"n{n}_k8192", n, 8192, 128, "fp8_row") for n in NS_8192]
    out += [("sweep", f"n{n}", n, 4096, 16, "fp8_row") for n in (16384, 20480)]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--case-seconds", type=float, default=0.06)
    a = ap.parse_args()
    log, meta, t0 = quant_gemm.start_run(a.out, "run.log", a.case_seconds)
    res = {"schema_version": 1, "meta": meta, "cases": []}

    def save():
        with open(f"{a.out}/fp8cap10.json.tmp", "w") as f:
            json.dump(res, f, indent=1)
        os.replace(f"{a.out}/fp8cap10.json.tmp", f"{a.out}/fp8cap10.json")
    quant_gemm.measure_items(plan(), lambda it: quant_gemm.gemm_case(*it), res["cases"], log, save,
                             t0 + a.budget, a.case_seconds)
    log("done")


if __name__ == "__main__":
    main()
