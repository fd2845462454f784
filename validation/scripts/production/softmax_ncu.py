#!/usr/bin/env python3
"""Eager torch.softmax (bf16, last dim) at 2048 rows over the widths where ATen's block kernel changes
(aten/src/ATen/native/cuda/SoftMax.cu: cunn_SoftMaxForwardReg<reg_cnt> while reg_cnt = ceil(cols / 1024) < 10, then
cunn_SoftMaxForwardSmem): run under Nsight Compute (validation/results/h200-softmaxocc/ncu.sh) for each kernel's
registers, occupancy and duration. The committed sets price 2304-8192 columns at many rows 15-28 % fast
(h200-heldout19 1800 x 8192, -heldout21 2500 x 6400, -heldout27 5000 x 7392 and 2500 x 2304); 4096 and 5120 are
priced within 2 %. Nothing is fitted here.

    python3 validation/scripts/production/softmax_ncu.py [rows]
"""
import sys

import torch

COLS = [2304, 3072, 4096, 5120, 5632, 6144, 6400, 7168, 8192, 9216, 10240, 12288]


def main(rows):
    for cols in COLS:
        x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
        torch.softmax(x, -1)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("measure")
        for _ in range(2):
            torch.softmax(x, -1)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        print(rows, cols, flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2048)
