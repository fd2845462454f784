"""The split-decode combine's DRAM walk at head dims 64 and 256 (planned 2026-12-06, twenty-fifth session, after
flash2.combine_dram_per_split landed on h100-combinewave's head-dim-128 grids alone). The same two-wave grids (16 and
31 sequences, 33 and 17 splits, 527-528 CTAs) with the K / V at 34 / 68 / 102 MB, at head dim 64 (256-key blocks, the
combine's CTA 8 query rows) and 256 (64-key blocks). The landed rule prices the walk by the K / V streamed after the
first wave, whatever the head dim. run_all.py --shapes combinedim times each call; `python3 split_kernels.py OUT
combinedim` adds each kernel's device time. Nothing is fitted before it is read.

    OUT=... bash validation/results/combinedim/run.sh
"""
PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim): GQA group 8 on one KV head a sequence; one, two, three key blocks a split.
DECODE = [
    (16, 8, 1, 8400, 64), (16, 8, 1, 16600, 64), (16, 8, 1, 24800, 64),    # 33 splits, 528 CTAs: 34 / 68 / 102 MB
    (31, 8, 1, 4300, 64), (31, 8, 1, 8600, 64), (31, 8, 1, 12500, 64),     # 17 splits, 527 CTAs: 34 / 68 / 99 MB
    (16, 8, 1, 2100, 256), (16, 8, 1, 4150, 256), (16, 8, 1, 6200, 256),   # 33 splits: 34 / 68 / 102 MB
    (31, 8, 1, 1080, 256), (31, 8, 1, 2150, 256), (31, 8, 1, 3130, 256),   # 17 splits: 34 / 68 / 99 MB
]
BACKENDS = ("flash",)

