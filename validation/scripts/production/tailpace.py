"""FlashAttention-2's decode without a split across CTA counts (lead, 2026-12-04, twelfth session; issue 10), planned
after branch tailpace landed and before it was measured: the swapped GQA group, one CTA a (sequence, KV head), so the
CTA count is batch x KV heads. Branch tailpace prices a last round of no more CTAs than SMs as running alone on its
SMs (lone_pace), a rule read off the residual pattern of every committed set's decode calls; this set is new shapes
across the round edges (240-800 CTAs at head dim 128, 300-660 at 64 and 256), none fitted.

    OUT=... bash validation/results/h200-tailpace/run.sh
"""

PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token; CTAs = batch x kv_heads (>= 80 % of 264: no split)
DECODE = ([(b, 32, 8, 2000, 128) for b in (30, 34, 40, 48, 50, 60, 66, 70, 80, 100)] +
          [(b, 16, 4, 3000, 64) for b in (75, 90, 99, 120, 140, 165)] +
          [(b, 16, 8, 1500, 256) for b in (36, 45, 50, 66, 70, 82)])
BACKENDS = ("flash",)
