#!/usr/bin/env python3
"""cuDNN's decode SDPA at GQA groups wider than its 16-row tile, under Nsight Compute (lead, 2026-12-05, nineteenth
session; issue 10). h200-widegroup's cuDNN calls miss 9.8 / 18.2 % (docs/targets.md) and its split calls read about
2.4 TB/s where the model prices 4.05: the grids decide between a split count other than the model's, K / V read once
a query tile (DRAM bytes over the unique K / V), and a pace limit inside the SM. Each shape of h200-widegroup and
h200-widecheck runs once inside an NVTX range "measure" (after a warm call), so that ncu records every kernel of the
call (the attention kernel and any combine): grid, block, registers, shared memory, occupancy limits, duration, DRAM
and L2 bytes. Nothing is fitted to these counters.

    ncu --nvtx --nvtx-include "measure/" --metrics ... --csv --page raw python3 widegroup_ncu.py
    (validation/results/h200-widencu/run.sh)

Prints one line a shape (index, batch, heads, KV heads, keys, head dim) in the order ncu sees them.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import widecheck  # noqa: E402
import widegroup  # noqa: E402

SHAPES = widegroup.DECODE + widecheck.DECODE


def run(i, b, h, kvh, n, d):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    # The layout run_all.py measures (attention.py): (batch, seq, heads, dim) transposed to (batch, heads, seq, dim).
    q = torch.randn(b, 1, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    k, v = (torch.randn(b, n, kvh, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2) for _ in range(2))
    from ncu_measure import measure_once
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        measure_once(lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True))
    print(i, b, h, kvh, n, d, flush=True)
    del q, k, v


def main():
    import torch  # here, so that widencu_table.py reads SHAPES without torch
    torch.cuda.set_device(0)
    for i, s in enumerate(SHAPES):
        run(i, *s)


if __name__ == "__main__":
    main()
