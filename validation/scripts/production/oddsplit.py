"""A probe of FlashAttention-2's split-KV decode (SDPA's flash backend, one query token) at head dims short of the
kernel's compiled dim (lead, 2026-12-04, twelfth session; issue 10). h200-headdims found the split path 15-21 % slower
than priced at head dims 32, 80 and 160, and head dim 80 slower than 96 over fewer bytes (69.0 against 62.2 us, 1 x 32
heads x 16000 keys). The probe times the split kernel at every compiled dim and the dims that run the next one up
(48 -> 64, 80 -> 96, 112 -> 128, 160 -> 192, 224 -> 256), at two cache lengths and a GQA group, and Nsight Compute's
memory and issue counters of eight of them (flash2_ncu.py --decode-odd): whether the short dims' time follows their
bytes, the kernel's padded dim, or its load instructions. Planned before it was measured.

    OUT=... bash validation/results/h200-oddsplit/run.sh
"""

PREFILL = []
# (batch, heads, kv_heads, kv_len, head_dim), one query token: every grid below 80 % of 264 CTA slots, so all split
DECODE = ([(1, 32, 32, 16000, d) for d in (64, 80, 96, 112, 128)] +
          [(1, 16, 16, 16000, d) for d in (32, 48, 64, 160, 192, 224, 256)] +
          [(1, 32, 32, 64000, d) for d in (80, 96)] + [(1, 16, 16, 64000, d) for d in (32, 160, 192)] +
          [(1, 32, 8, 16000, d) for d in (80, 96)] + [(2, 16, 16, 4000, d) for d in (80, 96)])
BACKENDS = ("flash",)
