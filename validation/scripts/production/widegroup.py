"""Decode with a GQA group wider than cuDNN's 16-row query tile (lead, 2026-12-04, thirteenth session; issue 10),
planned after branch widegroup and before it was measured. h200-heldout31's Falcon-7B calls (71 query heads on one KV
head) ran 26 / 38 % slower than priced: each (sequence, KV head) runs ceil(group / 16) CTAs, and the model had priced
them as sharing one walk of the unit's K / V. Branch widegroup (attention_decode_cudnn.cpp, resident_stream_s) gives
each of them the whole walk, the DRAM stream once. This set checks that on groups 24-128 (2-8 query tiles) at head dims
64, 128 and 256, split and not split; none of it is fitted on. FlashAttention-2 beside it (its swapped decode takes the
group as query rows).

    OUT=... bash validation/results/h200-widegroup/run.sh
"""

PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 32, 1, 50000, 128), (16, 32, 1, 6000, 128), (120, 32, 1, 2000, 128),
    (2, 48, 1, 20000, 128), (40, 48, 1, 3000, 128), (160, 48, 1, 1200, 128),
    (4, 64, 2, 10000, 128), (60, 64, 2, 1500, 128),
    (1, 128, 1, 16000, 128), (30, 128, 1, 2500, 128),
    (1, 48, 1, 40000, 64), (24, 48, 1, 5000, 64), (180, 48, 1, 1500, 64),
    (3, 71, 1, 12000, 64), (90, 71, 1, 1000, 64),
    (2, 128, 2, 25000, 64), (50, 128, 2, 2000, 64), (8, 96, 4, 4000, 64),
    (4, 32, 1, 8000, 256), (40, 32, 1, 1500, 256),
]
BACKENDS = ("cudnn", "flash")
