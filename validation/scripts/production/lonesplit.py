"""FlashAttention-2's split-KV decode on grids alone on their SMs (splits x CTAs <= 132): the two kernels apart
(lead, planned 2026-12-05, twenty-third session). Such grids are priced 5-28 % slow on both cards, growing with the
split count (docs/accuracy-notes.md, twenty-second session), and a call's time alone cannot say whether the split
kernel (one key block a CTA here) or the combine's walk over the splits is priced wrong. run_all.py --shapes lonesplit
times each call as every set does (CUDA-graph replay); `python3 split_kernels.py OUT lonesplit` adds each kernel's
device time from torch.profiler's CUDA activity to OUT/kernel_split.json. Nothing is fitted before it is read.

    OUT=... bash validation/results/lonesplit/run.sh
"""
PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token; the split count is FlashAttention-2's (flash_api.cpp):
# one key block a split on all of these (block 256 keys at head dim 64, 128 at 128, 64 at 256), CTAs = batch x KV heads.
DECODE = [
    # head dim 128, one (sequence, KV head) unit: 8 -> 128 splits
    (1, 8, 1, 1024, 128), (1, 8, 1, 4096, 128), (1, 8, 1, 8192, 128), (1, 8, 1, 12800, 128), (1, 8, 1, 16384, 128),
    # two and four units
    (1, 16, 2, 2048, 128), (1, 16, 2, 4096, 128), (1, 16, 2, 8192, 128), (1, 32, 4, 2048, 128), (1, 32, 4, 4096, 128),
    # head dim 64: 16 -> 128 splits, and four units
    (1, 8, 1, 4096, 64), (1, 8, 1, 16384, 64), (1, 8, 1, 32768, 64), (1, 16, 4, 8192, 64),
    # head dim 256: 16 / 64 splits, and two units
    (1, 8, 1, 1024, 256), (1, 8, 1, 4096, 256), (1, 16, 2, 3000, 256),
    # for contrast, split grids of 256 CTAs (two an SM): the same split counts with more CTAs and combine rows
    (1, 16, 2, 16384, 128), (1, 32, 8, 4096, 128), (2, 32, 8, 2048, 128), (4, 32, 8, 1024, 128), (2, 32, 8, 8192, 64),
]
BACKENDS = ("flash",)

