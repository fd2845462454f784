#!/usr/bin/env python3
"""Eager F.rms_norm / F.layer_norm (bf16, ATen's vectorized_layer_norm_kernel, one 128-thread CTA a row) under
Nsight Compute (validation/results/h200-normissue/run.sh): each width's registers, occupancy, warp instructions and
the SM's issue rate, at a row count given on the command line. Why: the committed sets' many-row calls do not follow
the eager profile's whole 8-CTA waves of a chain (aten_kernel_cost.cpp, row_kernel): narrow rows run 15-38 % slower
than priced (7000 x 576, 5000 x 960), 16384 x 4096 21-26 % faster, 1100-1500 rows 28-64 % faster. If many rows are
issue-bound (as eager softmax's block kernels are, h200-softmaxocc), the price is rows x instructions a row over the
SMs' issue. Nothing is fitted to time here.

    python3 validation/scripts/production/norm_ncu.py [rows]
"""
import sys

import torch
import torch.nn.functional as F

COLS = [576, 1024, 1536, 2048, 2560, 3072, 4096, 5120, 6144, 8192, 11008, 14336, 16384]


def main(rows):
    for op in ("rms_norm", "layer_norm"):
        for cols in COLS:
            x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
            run = (lambda: F.rms_norm(x, (cols,), w, 1e-6)) if op == "rms_norm" else (lambda: F.layer_norm(x, (cols,), w, b, 1e-5))
            run()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push("measure")
            for _ in range(2):
                run()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
            print(op, rows, cols, flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4224)
