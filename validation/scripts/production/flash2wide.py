"""Probe behind FlashAttention-2's wide-group decode miss (lead, 2026-12-04, thirteenth session; issue 10): its decode
(the group swapped into the query rows, the split kernel) at one shape per row, the group stepped 8 -> 128 on one KV
head at fixed units and keys. h200-widegroup priced its calls at groups 24-128 12.8 / 33.5 %, fast; every committed
set's calls at groups up to 16 sit near zero. Recorded before any rule is read off it; ncu_flash2_wide.py beside it.

    OUT=... bash validation/results/h200-flash2wide/run.sh
"""

PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = ([(60, g, 1, 1500, 64) for g in (8, 16, 24, 32, 48, 64, 96, 128)] +
          [(40, g, 1, 3000, 128) for g in (8, 16, 24, 32, 48, 64, 96, 128)] +
          [(160, g, 1, 1200, 128) for g in (8, 48)])
BACKENDS = ("flash",)
