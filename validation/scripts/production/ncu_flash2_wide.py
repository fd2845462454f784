#!/usr/bin/env python3
"""ncu targets for h200-flash2wide: FlashAttention-2's decode (SDPA's flash backend) at batch 160, one KV head, 1200
keys, head dim 128, group 8 against 48 (each call twice; the second is the one to read). Run as
    ncu --clock-control none -k regex:flash_fwd --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section LaunchStats --section InstructionStats --csv --page raw python3 .../ncu_flash2_wide.py > ncu.csv
"""
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
for h in (8, 48):
    b, kvh, d, ctx = 160, 1, 128, 1200
    q = torch.randn(b, 1, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    k = torch.randn(b, ctx, kvh, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    v = torch.randn(b, ctx, kvh, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        for _ in range(2):
            F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    torch.cuda.synchronize()
    print(f"h{h} kv{kvh} d{d} b{b} ctx{ctx}", flush=True)
