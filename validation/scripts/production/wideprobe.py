"""Probe behind h200-widegroup's miss (lead, 2026-12-04, thirteenth session; issue 10): cuDNN's decode at one shape
per row, the GQA group stepped 16 -> 128 (1 -> 8 of its 16-row query tiles a unit), so that what a further tile costs
is read at fixed units and keys. Recorded before any rule is read off it; run with ncu_wide_decode.py's profiles.

    OUT=... bash validation/results/h200-wideprobe/run.sh
"""

PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token: groups 8, 16, 32, 48, 64, 96, 128 on one KV head
DECODE = ([(60, g, 1, 1500, 64) for g in (8, 16, 32, 48, 64, 96, 128)] +
          [(40, g, 1, 3000, 128) for g in (8, 16, 32, 48, 64, 96, 128)] +
          [(160, g, 1, 1200, 128) for g in (16, 48)] + [(90, g, 1, 1000, 64) for g in (16, 71)] +
          [(50, g, 2, 2000, 64) for g in (32, 256)])
BACKENDS = ("cudnn",)
