"""Is FlashAttention-2's slow split-decode combine the partial rows of early split waves pushed out of L2 by the later
waves' K / V? (planned 2026-12-06, twenty-fifth session.) The three slow combines of h100-splitgap (0.29-0.42 us a
split against 0.18-0.20) all follow split grids of three to four waves (770-1045 CTAs); h100-combinel2 held the
combine at 0.19-0.20 on single-wave grids whatever the K / V (16-98 MB), where every partial row is written as the
stream ends. Here the split grid has two waves with the splits and query rows fixed while the K / V doubles and
triples (one, two, three key blocks a split), four- and six-wave grids, and single-wave controls at 55 splits.
run_all.py --shapes combinewave times each call; `python3 split_kernels.py OUT combinewave` adds each kernel's
device time. Nothing is fitted before it is read.

    OUT=... bash validation/results/combinewave/run.sh
"""
PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim): GQA group 8 on one KV head a sequence; split count, grid (waves of
# 264 CTAs) and K / V (bf16) in the comment (flash2_decode_groups.split_count).
DECODE = [
    (16, 8, 1, 4200, 128),    # 33 splits, 528 CTAs (2 waves), 34 MB
    (16, 8, 1, 8300, 128),    # the same grid, 68 MB
    (16, 8, 1, 12400, 128),   # the same grid, 102 MB
    (31, 8, 1, 2150, 128),    # 17 splits, 527 CTAs (2), 34 MB
    (31, 8, 1, 4300, 128),    # 68 MB
    (31, 8, 1, 6250, 128),    # 99 MB
    (14, 8, 1, 4700, 128),    # 37 splits, 518 CTAs (2), 34 MB
    (14, 8, 1, 9300, 128),    # 67 MB
    (19, 8, 1, 7000, 128),    # 55 splits, 1045 CTAs (4), 68 MB: h100-splitgap's slowest combine
    (27, 8, 1, 4950, 128),    # 39 splits, 1053 CTAs (4), 68 MB
    (53, 8, 1, 2400, 128),    # 19 splits, 1007 CTAs (4), 65 MB
    (53, 8, 1, 3700, 128),    # 29 splits, 1537 CTAs (6), 100 MB
    (4, 8, 1, 7000, 128),     # 55 splits, 220 CTAs (one wave), 14 MB
    (2, 64, 1, 7000, 128),    # 55 splits, 110 CTAs (one wave), 7 MB, 128 rows
]
BACKENDS = ("flash",)

