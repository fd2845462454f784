"""A check of the twenty-second session's FlashAttention-2 rule (lead, 2026-12-05), planned after it was committed
(4890058: the non-split kernel's K / V stream over waves, a last wave of no more CTAs than SMs at flash2.lone_pace) and
before anything was measured: non-split decode grids (212 CTAs or more, so FlashAttention-2 does not split) whose last
wave holds 8-136 CTAs, at head dims 64 / 128 / 192 / 256, GQA groups 2-8, 1200-8000 keys. Nothing is fitted on it.

    OUT=... bash validation/results/heldout35/run.sh
"""

PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token; CTAs = batch x kv_heads (the swapped group)
DECODE = [(68, 16, 4, 3000, 256), (37, 32, 8, 2200, 256), (31, 20, 10, 1800, 256), (82, 8, 4, 2400, 256),
          (47, 32, 8, 1700, 256), (100, 16, 4, 1500, 256), (150, 8, 4, 1200, 256), (140, 16, 2, 2000, 256),
          # head dim 192: one CTA an SM (132 slots)
          (30, 16, 8, 3000, 192), (34, 24, 8, 2500, 192),
          # head dims 128 / 64 at longer caches
          (70, 32, 4, 6000, 128), (35, 32, 8, 5000, 128), (72, 16, 4, 8000, 64), (90, 16, 4, 6000, 64)]
BACKENDS = ("flash",)
