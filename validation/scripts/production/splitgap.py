"""FlashAttention-2's split decode on grids of 96 to 1248 CTAs: does the call's time outside its two kernels keep
growing with the split kernel's grid past a wave? (planned 2026-12-06, twenty-fifth session, after
flash2.split_gap_per_cta landed at 3.8 ns a CTA, linear in the grid.) On both H100 leases of lonesplit that time
grew from 0.3-0.7 us at 8 CTAs to 0.8-3.3 us at 256; the committed split calls reach 1248 CTAs, where a linear gap
prices 4.7 us and one that stops growing at a wave (264 CTAs) 1 us. run_all.py --shapes splitgap times each call as
every set does; `python3 split_kernels.py OUT splitgap` adds each kernel's device time. Nothing is fitted before it
is read.

    OUT=... bash validation/results/splitgap/run.sh
"""
PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token, GQA group 8 at 8 KV heads; FlashAttention-2's split
# count (flash_api.cpp's heuristic, flash2_decode_groups.split_count) in the comment: CTAs = batch x KV heads.
DECODE = [
    (1, 16, 4, 3000, 128),    # 4 CTAs x 24 splits = 96
    (3, 8, 1, 12000, 128),    # 3 x 47 = 141
    (1, 8, 2, 24000, 128),    # 2 x 94 = 188
    (2, 16, 4, 6000, 64),     # 8 x 24 = 192
    (5, 8, 1, 6000, 128),     # 5 x 47 = 235
    (5, 16, 2, 12000, 128),   # 10 x 24 = 240
    (16, 32, 4, 3000, 128),   # 64 x 4 = 256
    (17, 64, 8, 1500, 64),    # 136 x 3 = 408
    (23, 32, 4, 2500, 64),    # 92 x 5 = 460
    (12, 64, 8, 6000, 128),   # 96 x 5 = 480
    (20, 64, 8, 1200, 64),    # 160 x 3 = 480
    (9, 64, 8, 10000, 64),    # 72 x 7 = 504
    (22, 64, 8, 1500, 64),    # 176 x 3 = 528
    (17, 64, 8, 5000, 64),    # 136 x 5 = 680
    (7, 16, 2, 7000, 128),    # 14 x 55 = 770
    (5, 16, 2, 20000, 64),    # 10 x 79 = 790
    (19, 8, 1, 7000, 128),    # 19 x 55 = 1045
    (23, 32, 4, 3000, 64),    # 92 x 12 = 1104
    (13, 64, 8, 3000, 64),    # 104 x 12 = 1248
]
BACKENDS = ("flash",)

