"""Does FlashAttention-2's split-decode combine slow because the split kernel's K / V stream pushed the partial rows out
of L2? (planned 2026-12-06, twenty-fifth session, after h100-splitgap: three calls of 55-79 splits over 112-160 query
rows walked 0.29-0.42 us a split against the 0.18 of small grids, their K / V 50-68 MB, past the 50 MB L2.) Each
series holds the query rows and the split count fixed (so the partial rows, rows x splits x d fp32, are the same
bytes) and steps the keys so that the K / V the split kernel streams goes from well inside L2 to past it. If the
combine's walk slows as the K / V passes L2, the partial rows are read from DRAM; if it stays, the partial rows' own
size sets the pace. run_all.py --shapes combinel2 times each call; `python3 split_kernels.py OUT combinel2` adds
each kernel's device time. Nothing is fitted before it is read.

    OUT=... bash validation/results/combinel2/run.sh
"""
PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token; FlashAttention-2's split count in the comment
# (flash2_decode_groups.split_count), the K / V bytes (bf16) and the partial rows' (fp32).
DECODE = [
    # 128 rows (2 sequences x 64 query heads on one KV head), 125 splits, partial rows 8.2 MB
    (2, 64, 1, 16000, 128),   # K / V 16 MB
    (2, 64, 1, 32000, 128),   # 33 MB
    (2, 64, 1, 48000, 128),   # 49 MB
    (2, 64, 1, 64000, 128),   # 66 MB
    # the same rows, 94 splits, partial rows 6.2 MB
    (2, 64, 1, 12000, 128),   # 12 MB
    (2, 64, 1, 24000, 128),   # 25 MB
    # 128 rows (4 x 32 on one KV head each), 63 splits, partial rows 4.1 MB
    (4, 32, 1, 8000, 128),    # 16 MB
    (4, 32, 1, 16000, 128),   # 33 MB
    (4, 32, 1, 24000, 128),   # 49 MB
    (4, 32, 1, 32000, 128),   # 66 MB
    # 128 rows (8 x 16), 32 splits, partial rows 2.1 MB
    (8, 16, 1, 8000, 128),    # 33 MB
    (8, 16, 1, 12000, 128),   # 49 MB
    (8, 16, 1, 16000, 128),   # 66 MB
    (8, 16, 1, 24000, 128),   # 98 MB
    # h100-splitgap's slowest combine again, and a head-dim-64 series of 160 rows at 21-25 splits
    (19, 8, 1, 7000, 128),    # 55 splits, 68 MB, partial rows 4.3 MB
    (10, 16, 1, 12000, 64),   # 24 splits, 31 MB
    (10, 16, 1, 24000, 64),   # 24 splits, 61 MB
]
BACKENDS = ("flash",)

