#!/usr/bin/env python3
"""The target ncu profiles for cudnn_occupancy.py: cuDNN's decode SDPA once per head dim (64, 128,
256) at one batch, each call twice (the second is the one to read), plus the masked call the
compiled profile's StaticCache makes. Run as
    ncu --clock-control none -k regex:'sdpa|lean' --section LaunchStats --section Occupancy \
        --csv --page raw python3 validation/scripts/production/ncu_cudnn_decode.py > ncu.csv
"""
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
for h, kvh, d, b, ctx in [(16, 4, 64, 80, 2048), (32, 8, 128, 40, 2048), (8, 4, 256, 40, 2048)]:
    q = torch.randn(b, h, 1, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, kvh, ctx, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        for _ in range(2):
            F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    torch.cuda.synchronize()
    print(f"h{h} kv{kvh} d{d} b{b} ctx{ctx}", flush=True)
# The compiled profile's call: K / V repeated to every head, a boolean mask (StaticCache).
b, h, d, ctx = 40, 32, 128, 2048
q = torch.randn(b, h, 1, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn(b, h, ctx, d, device="cuda", dtype=torch.bfloat16)
v = torch.randn_like(k)
mask = torch.ones(b, 1, 1, ctx, device="cuda", dtype=torch.bool)
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
    for _ in range(2):
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
torch.cuda.synchronize()
print("masked d128 b40", flush=True)
