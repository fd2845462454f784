#!/usr/bin/env python3
"""ncu targets for h200-wideprobe: cuDNN's decode SDPA at one shape, group 16 against 48 / 71 / 128 on one KV head
(each call twice; the second is the one to read). Run as
    ncu --clock-control none -k regex:sdpa --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section LaunchStats --csv --page raw python3 validation/scripts/production/ncu_wide_decode.py > ncu.csv
"""
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
for h, kvh, d, b, ctx in [(16, 1, 64, 90, 1000), (71, 1, 64, 90, 1000), (16, 1, 128, 160, 1200), (48, 1, 128, 160, 1200),
                          (128, 1, 128, 40, 3000)]:
    q = torch.randn(b, h, 1, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, kvh, ctx, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        for _ in range(2):
            F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    torch.cuda.synchronize()
    print(f"h{h} kv{kvh} d{d} b{b} ctx{ctx}", flush=True)
