"""A check of the split wave's CTA pace (lead, 2026-12-05, twenty-first session; issue 10), planned after the rule was
committed (d81efd4) and before anything was measured: attention_decode_flash2.cpp's wave_stream_factor takes the longer
of DRAM's time for a wave's bytes and one CTA's own walk at its slot's pace, the pace carried to the H100 as the die's.
It was read off the H100's 80 split calls, none held out. Shapes no set holds: split FlashAttention-2 decode grids of
8-208 CTAs (batch 1-24, GQA groups 1-8, 1500-100000 keys, head dims 64 / 80 / 128 / 160 / 256) and three non-split
ones; the same calls through cuDNN (its decode rule unchanged, a second check of the carried calibration). On an H100
it checks the rule; on an H200 its prices are the old rule's, so it is a plain held-out set there. Nothing is fitted
on it.

    OUT=... bash validation/results/heldout33/run.sh
"""

PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token; split when batch x kv_heads < 0.8 x 2 x SMs
DECODE = [(1, 32, 8, 50000, 128), (1, 40, 8, 24000, 128), (2, 32, 4, 36000, 128), (3, 28, 4, 15000, 128),
          (5, 32, 8, 9000, 128), (6, 64, 8, 7000, 128), (12, 32, 8, 3000, 128), (20, 16, 4, 6000, 128),
          (1, 16, 2, 80000, 128), (10, 20, 4, 12000, 128), (16, 32, 8, 1500, 128), (1, 24, 8, 64000, 128),
          (26, 32, 8, 2200, 128), (2, 64, 4, 12000, 64), (4, 12, 4, 20000, 64), (1, 32, 32, 20000, 64),
          (8, 16, 8, 5000, 256), (1, 16, 4, 40000, 256), (3, 16, 8, 10000, 256), (2, 32, 8, 30000, 80),
          (4, 16, 16, 9000, 160), (1, 8, 1, 100000, 128),
          # non-split: 320 / 360 / 352 CTAs
          (40, 32, 8, 1200, 128), (90, 16, 4, 2500, 64), (44, 16, 8, 1300, 256)]
BACKENDS = ("flash", "cudnn")
