#!/usr/bin/env python3
"""fp8mm14's held-out probe of cuBLASLt's tensor-wise FP8 kernels (issue 12, results in
validation/results/h200-fp8mm14): torch._scaled_mm with one scale each (quant_gemm.gemm_case
"fp8_tensor") on projections of models none of whose shapes is in h200-quant (Qwen2.5-14B, Qwen3-32B,
Llama-3.2-1B / 3B, Qwen2.5-1.5B), at 1-4096 rows, measured after the three fp8_tensor keys and the
split rule were fitted (quant_gemm_cost.cpp tensor_fp8_cost; predictions committed beforehand in
validation/results/h200-fp8mm14/predictions.txt).

    python3 validation/scripts/quant/run_fp8mm14.py OUT_DIR [--budget S]

quant_gemm.py's harness (correctness first, CUDA-graph replay, rotating buffers, median) with
MIN_SAMPLES raised to 10; kernel names and each kernel's grid from torch.profiler's trace
(run_fp8row12.grids). Down projections first (the split rule's edges: K > 4096, rows x N < 2^17).
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, HERE)

# (model, tag, N, K)
SHAPES = (("llama3.2-1b", "down", 2048, 8192), ("qwen2.5-1.5b", "down", 1536, 8960),
          ("llama3.2-3b", "down", 3072, 8192), ("qwen2.5-14b", "down", 5120, 13824),
          ("qwen3-32b", "down", 5120, 25600), ("llama3.2-1b", "o", 2048, 2048),
          ("qwen2.5-14b", "o", 5120, 5120), ("llama3.2-1b", "gateup", 16384, 2048),
          ("qwen2.5-14b", "gateup", 27648, 5120))
MS = (1, 32, 64, 128, 256, 1024, 4096)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=140.0)
    ap.add_argument("--case-seconds", type=float, default=0.06)
    a = ap.parse_args()
    import harness
    import quant_gemm
    from run_fp8row12 import grids
    log, meta, t0 = quant_gemm.start_run(a.out, "run.log", a.case_seconds)
    harness.MIN_SAMPLES = 10
    meta["harness"] = meta["harness"].replace("MIN_SAMPLES=5", "MIN_SAMPLES=10")
    res = {"schema_version": 1, "meta": meta, "cases": []}

    def save():
        with open(f"{a.out}/fp8mm14.json.tmp", "w") as f:
            json.dump(res, f, indent=1)
        os.replace(f"{a.out}/fp8mm14.json.tmp", f"{a.out}/fp8mm14.json")

    def make(it):
        case, make_set, fn, check, set_bytes, tol = quant_gemm.gemm_case(*it)
        try:
            s = make_set()
            case["kernel_grids"] = grids(fn, s)
            del s
        except Exception as e:  # a side reading: the timing goes on without it
            case["kernel_grids_error"] = f"{type(e).__name__}: {str(e)[:200]}"
        return case, make_set, fn, check, set_bytes, tol
    items = [(model, tag, n, k, m, "fp8_tensor") for model, tag, n, k in SHAPES for m in MS]
    log(f"{len(items)} cases")
    quant_gemm.measure_items(items, make, res["cases"], log, save, t0 + a.budget, a.case_seconds)
    log("done")


if __name__ == "__main__":
    main()
