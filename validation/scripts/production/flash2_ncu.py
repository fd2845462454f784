#!/usr/bin/env python3
"""FlashAttention-2's prefill kernel (PyTorch SDPA's flash backend) under Nsight Compute (validation/results/h200-lonecta/
lone.sh): registers a thread, occupancy limits and the SM's achieved occupancy at head dims 64 / 128 / 256, and one grid
of fewer CTAs than SMs. Why: attention_prefill_flash2.cpp takes two CTAs an SM (255 registers a thread); the probe says
whether that holds. Nothing is fitted to these counters.

    python3 validation/scripts/production/flash2_ncu.py
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_measure import measure_once  # noqa: E402

SHAPES = [(1, 32, 1024, 128), (1, 32, 1024, 64), (1, 16, 1024, 256), (1, 4, 1024, 128)]  # batch, heads, seq, head dim
HEAD_DIMS = [(1, 32, 1024, d) for d in (32, 80, 96, 160, 192)]  # --head-dims (h200-headdims)
# --decode-odd (h200-oddsplit): one query token over 16000 keys, the split kernel; (heads, head dim, cache layout):
# "bshd" is the (batch, seq, heads, dim) cache run_all.py measures (a head's rows 160 B apart at dim 80: not 64 B
# aligned), "bhsd" the head-major cache transformers' DynamicCache holds (a head's rows contiguous)
DECODE_ODD = [(32, d, lay) for d in (80, 96, 128) for lay in ("bshd", "bhsd")] + [(16, d, "bshd") for d in (32, 64, 160, 192)]


def decode_odd():
    for h, d, lay in DECODE_ODD:
        q = torch.randn(1, h, 1, d, device="cuda", dtype=torch.bfloat16)
        if lay == "bshd":
            k, v = (torch.randn(1, 16000, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2) for _ in range(2))
        else:
            k, v = (torch.randn(1, h, 16000, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            measure_once(lambda: F.scaled_dot_product_attention(q, k, v))
        print(h, d, lay, flush=True)


def main(shapes):
    for b, h, s, d in shapes:
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            measure_once(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
        print(b, h, s, d, flush=True)


if __name__ == "__main__":
    import sys
    if "--decode-odd" in sys.argv:
        decode_odd()
    else:
        main(HEAD_DIMS if "--head-dims" in sys.argv else SHAPES)
