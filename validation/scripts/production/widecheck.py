"""A check of branches widegroup and smintake (lead, 2026-12-04, thirteenth session; issue 10), planned after
kSmIntake was fitted on h200-wideprobe and before it was measured: cuDNN's decode at GQA groups 24-256 a KV head
(2-7 of its 16-row tiles), head dims 64 / 128 / 256, split and not, at units and keys no set holds. None of it is
fitted on.

    OUT=... bash validation/results/h200-widecheck/run.sh
"""

PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (30, 40, 1, 2500, 64), (120, 24, 1, 800, 64), (8, 80, 1, 20000, 64), (70, 64, 2, 1200, 64), (200, 32, 1, 600, 64),
    (16, 112, 1, 6000, 64), (48, 56, 1, 3000, 64), (10, 256, 4, 4000, 64),
    (20, 40, 1, 5000, 128), (100, 24, 1, 1800, 128), (6, 80, 1, 30000, 128), (50, 64, 2, 2500, 128),
    (12, 112, 1, 8000, 128), (140, 32, 1, 700, 128), (24, 96, 2, 3500, 128), (80, 48, 2, 900, 128),
    (2, 64, 1, 60000, 128),
    (20, 40, 1, 2000, 256), (60, 24, 1, 1000, 256), (3, 64, 1, 12000, 256),
]
BACKENDS = ("cudnn",)
