#!/usr/bin/env python3
"""One launch each of row-scaled (and one tensor-scaled) FP8 torch._scaled_mm on shapes where
h200-quant2 saw the padded-row slowdown, for Nsight Compute (h200-quant2 README):

    ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \\
        --section LaunchStats --section WarpStateStats --csv --page raw python3 ncu_rowwise.py

Each case launches exactly one nvjet kernel (no warm-up: cuBLASLt picks the same kernel)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, HERE)
import torch  # noqa: E402

import quant_gemm  # noqa: E402

CASES = [("o70", 8192, 8192, 16, "fp8_row"), ("o70", 8192, 8192, 64, "fp8_row"), ("o70", 8192, 8192, 128, "fp8_row"),
         ("n16384", 16384, 4096, 16, "fp8_row"), ("n16384", 16384, 4096, 128, "fp8_row"),
         ("down8b", 4096, 14336, 16, "fp8_row"), ("down8b", 4096, 14336, 128, "fp8_row"),
         ("o70", 8192, 8192, 16, "fp8_tensor")]
for tag, n, k, m, var in CASES:
    case, make_set, fn, _, _, _ = quant_gemm.gemm_case("ncu", tag, n, k, m, var)
    s = make_set()
    torch.cuda.synchronize()
    fn(*s)
    torch.cuda.synchronize()
    print(case["name"], flush=True)
