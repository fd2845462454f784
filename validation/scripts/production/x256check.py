"""A check planned after the twenty-sixth session's two cuDNN decode changes, before it was measured (issue 10):
the x256 kernel's DRAM stream at the call's own bytes (head dims 144-240, including 176 / 208 / 240, never measured),
and the merge's CTA a query row (kMergePerRow, 1056 rows at most where a split can happen: 64-1056 here; fitted on
12-256, checked at 32-960). Each call is timed as every set is (run_all.py --shapes x256check) and its kernels read
apart (split_kernels.py OUT x256check). Nothing is fitted on it.

    OUT=... bash validation/results/x256check/run.sh
"""

PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    # x256 kernel, whole (no split): batch 8-200, GQA 1-4, with two 256 twins for the ratio
    (16, 16, 16, 3000, 144), (16, 16, 16, 3000, 176), (16, 16, 16, 3000, 208), (16, 16, 16, 3000, 240),
    (16, 16, 16, 3000, 256),
    (64, 8, 8, 2000, 160), (64, 8, 8, 2000, 224), (48, 16, 4, 5000, 160), (48, 16, 4, 5000, 208),
    (8, 32, 8, 12000, 176), (8, 32, 8, 12000, 192), (8, 32, 8, 12000, 256),
    (200, 8, 2, 1500, 192), (100, 4, 4, 3000, 144),
    # x256 kernel, split (few units), with a 256 twin
    (1, 8, 8, 20000, 160), (2, 16, 4, 10000, 192), (1, 32, 8, 5000, 224), (1, 8, 8, 20000, 256),
    # the merge's rows: split calls of 64-1056 query rows at 2-4 splits (head dims 64 / 128), and 256
    (60, 16, 1, 2000, 128), (64, 16, 1, 4000, 64), (33, 32, 2, 3000, 128), (16, 32, 2, 8000, 128),
    (8, 64, 4, 16000, 128), (4, 64, 8, 30000, 64), (30, 16, 2, 6000, 128), (2, 32, 32, 30000, 128),
    (1, 64, 64, 60000, 128), (8, 32, 4, 8000, 256), (16, 16, 2, 4000, 256),
]
BACKENDS = ("cudnn",)
