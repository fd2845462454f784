"""A check of the twenty-first session's last two FlashAttention-2 decode rules (lead, 2026-12-05), planned after both
were committed (d1f83b4: the non-split kernel's K / V at the decode block's rate; 6d4de43: a split grid of no more CTAs
than SMs walks at flash2.lone_pace) and before anything was measured: nine split grids of 48-128 CTAs alone on their SMs
(batch 1-2, one to four KV heads, 4000-200000 keys), memory-bound non-split grids at head dims 192 / 256, and split /
non-split grids beside them. Nothing is fitted on it.

    OUT=... bash validation/results/heldout34/run.sh
"""

PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [(1, 4, 1, 200000, 128), (1, 16, 1, 30000, 128), (2, 8, 1, 60000, 64), (1, 12, 1, 80000, 256),
          (1, 32, 1, 20000, 128), (2, 16, 1, 8000, 128), (1, 32, 4, 4000, 128), (1, 8, 2, 6000, 64),
          (1, 24, 3, 5000, 128), (1, 40, 1, 150000, 128),
          # non-split, memory-bound at head dim 192 / 256, and compute-bound beside them
          (60, 16, 8, 2000, 256), (70, 32, 4, 2600, 256), (36, 16, 8, 3000, 192), (150, 8, 2, 1800, 256),
          (45, 32, 8, 1600, 128), (120, 16, 4, 1400, 64),
          # split grids past the SMs
          (3, 32, 8, 30000, 128), (6, 28, 4, 12000, 128), (2, 16, 4, 50000, 256)]
BACKENDS = ("flash",)
