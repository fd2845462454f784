"""cuDNN's decode (SDPA's cudnn backend, one query token) at head dims between 128 and 256 (lead, 2026-12-04, twelfth
session; issue 10), planned after the rule it checks was written and committed, before it was measured: such a call
runs cuDNN's x256 kernel and attention_decode_cudnn.cpp now prices it as the head-dim-256 call at the same shape
(runs_as_x256), a rule read off h200-headdims' four calls at 160 / 192 alone. Shapes no set holds: batch 1-128, 1000 to
60000 keys, GQA groups 1-4, head dims 144 / 160 / 192 / 224 and 256 beside them. The same calls through
FlashAttention-2 (SDPA's flash backend) check its `uneven_dim` (fitted on h200-oddsplit alone) at 144 / 160 / 224.

    OUT=... bash validation/results/h200-x256/run.sh
"""

PREFILL = []
SHAPES = [(1, 16, 16, 8000), (4, 16, 4, 30000), (32, 16, 16, 4000), (128, 8, 8, 1000), (2, 32, 8, 60000)]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = ([(b, h, kv, n, d) for d in (160, 192, 256) for b, h, kv, n in SHAPES] +
          [(b, h, kv, n, d) for d in (144, 224) for b, h, kv, n in (SHAPES[0], SHAPES[2])])
BACKENDS = ("cudnn", "flash")
