#!/usr/bin/env python3
"""FlashAttention-2's prefill kernel (PyTorch SDPA's flash backend) under Nsight Compute (validation/results/h200-lonecta/
lone.sh): registers a thread, occupancy limits and the SM's achieved occupancy at head dims 64 / 128 / 256, and one grid
of fewer CTAs than SMs. Why: attention_prefill_flash2.cpp takes two CTAs an SM (255 registers a thread); the probe says
whether that holds. Nothing is fitted to these counters.

    python3 validation/scripts/production/flash2_ncu.py
"""
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

SHAPES = [(1, 32, 1024, 128), (1, 32, 1024, 64), (1, 16, 1024, 256), (1, 4, 1024, 128)]  # batch, heads, seq, head dim
HEAD_DIMS = [(1, 32, 1024, d) for d in (32, 80, 96, 160, 192)]  # --head-dims (h200-headdims)


def main(shapes):
    for b, h, s, d in shapes:
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push("measure")
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
        print(b, h, s, d, flush=True)


if __name__ == "__main__":
    import sys
    main(HEAD_DIMS if "--head-dims" in sys.argv else SHAPES)
