"""Where FlashAttention-2's last round stops running alone (lead, 2026-12-04, twelfth session; issue 10): a probe for a
later session, planned after h200-tailpace and before it was measured. h200-tailpace found a last round of 8-120 CTAs
alone on its SMs at head dim 128 and one of 88-132 paired at 64 and 256. Here the non-split decode (the swapped GQA
group, one CTA a (sequence, KV head)) runs at 264 + t CTAs, t = 0-132, at head dims 64 / 128 / 256, beside one round of
240 CTAs at each. Nothing is fitted on it.

    OUT=... bash validation/results/h200-tailprobe/run.sh
"""

PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token; CTAs = batch x kv_heads
DECODE = ([(b, 16, 4, 3000, 64) for b in (60, 66, 69, 72, 78, 84, 90, 96, 99)] +
          [(b, 32, 8, 2000, 128) for b in (30, 33, 34, 36, 39, 42, 45, 48)] +
          [(b, 16, 8, 1500, 256) for b in (30, 33, 34, 36, 39, 42, 45, 48)])
BACKENDS = ("flash",)
