#!/usr/bin/env python3
"""fp8row11's probe of the row-scaled FP8 kernel past 128 rows (issue 12, results in
validation/results/h200-fp8row11): do the row tiles that share a weight column read it from DRAM
once (they run in the same wave) or once each, and what does each CTA's own column cost?

    python3 validation/scripts/quant/run_fp8row11.py OUT_DIR [--budget S]     # timed (harness)
    ncu --clock-control none --kernel-name regex:nvjet --metrics ... python3 run_fp8row11.py --ncu [--ncu-wide]

torch._scaled_mm row-wise (quant_gemm.gemm_case "fp8_row") over rows 128..1024 at a few (N, K):
the harness of quant_gemm.py (correctness first, CUDA-graph replay, rotating buffers, median).
--ncu launches each of NCU_CASES once (no timing) for Nsight Compute's DRAM / L2 counters and grid.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, HERE)

# (tag, N, K, rows): N = 8192, K = 8192 (Llama-3-70B o) at 64..256 CTAs; K = 28672 (its down) at
# 192 / 256 rows; N = 16384, K = 4096 at 256 / 512 rows (2 and 4 row tiles over 128 columns);
# N = 2048, K = 8192 at 256..1024 rows (2..8 row tiles over 16 columns, one wave).
TIMED = ([("o70", 8192, 8192, m) for m in (128, 192, 256, 384, 512)]
         + [("down70", 8192, 28672, m) for m in (192, 256, 384)]
         + [("n16384", 16384, 4096, m) for m in (256, 384, 512)]
         + [("n2048", 2048, 8192, m) for m in (256, 512, 1024)])
NCU_CASES = [("o70", 8192, 8192, m) for m in (128, 256, 512)] + [("down70", 8192, 28672, m) for m in (128, 256)] \
    + [("n16384", 16384, 4096, m) for m in (128, 256, 512)] + [("n2048", 2048, 8192, 1024)]
# --ncu-wide (a second call): weights past what L2 holds, two row tiles over 224-448 columns in
# 4-7 rounds (h200-quant's gate/ups at 256 rows, priced 3-16 % fast by the first call's model)
NCU_WIDE = [("gateup70", 57344, 8192, 256), ("gateup_qwen7", 37888, 3584, 256), ("gateup8", 28672, 4096, 256),
            ("gateup70", 57344, 8192, 128)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?")
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--case-seconds", type=float, default=0.06)
    ap.add_argument("--ncu", action="store_true")
    ap.add_argument("--ncu-wide", action="store_true")
    a = ap.parse_args()
    import quant_gemm  # noqa: E402
    if a.ncu or a.ncu_wide:
        import torch
        for tag, n, k, m in (NCU_WIDE if a.ncu_wide else NCU_CASES):
            case, make_set, fn, _, _, _ = quant_gemm.gemm_case("ncu", tag, n, k, m, "fp8_row")
            s = make_set()
            torch.cuda.synchronize()
            fn(*s)
            torch.cuda.synchronize()
            print(case["name"], flush=True)
            del s
        return
    log, meta, t0 = quant_gemm.start_run(a.out, "run.log", a.case_seconds)
    res = {"schema_version": 1, "meta": meta, "cases": []}

    def save():
        with open(f"{a.out}/fp8row11.json.tmp", "w") as f:
            json.dump(res, f, indent=1)
        os.replace(f"{a.out}/fp8row11.json.tmp", f"{a.out}/fp8row11.json")
    items = [("sweep", f"{tag}", n, k, m, "fp8_row") for tag, n, k, m in TIMED]
    quant_gemm.measure_items(items, lambda it: quant_gemm.gemm_case(*it), res["cases"], log, save,
                             t0 + a.budget, a.case_seconds)
    log("done")


if __name__ == "__main__":
    main()
