"""Head dims no set measured (lead, 2026-12-04, eleventh session; issue 10, branch flash2): FlashAttention-2's
(SDPA's flash backend) and cuDNN's prefill and decode at head dims 32, 80, 96, 160 and 192, planned before any of them
was measured; the kernel names say which tiles and warps FlashAttention-2 runs there (attention_prefill_flash2.cpp
takes the next measured head dim's), Nsight Compute their registers.

    OUT=... bash validation/results/h200-headdims/run.sh
"""

# (batch, heads, kv_heads, seq, head_dim), causal prefill: Phi-2 / StableLM (80), Phi-3-mini (96), small models (32)
PREFILL = [(b, h, kv, s, d) for d, h, kv in ((32, 16, 16), (80, 32, 32), (96, 32, 32), (160, 16, 16), (192, 16, 16))
           for b, s in ((1, 8192), (4, 2048), (32, 512))]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [(b, h, kv, n, d) for d, h, kv in ((32, 16, 16), (80, 32, 32), (96, 32, 32), (160, 16, 16), (192, 16, 16))
          for b, n in ((1, 16000), (64, 2000))]
BACKENDS = ("flash", "cudnn")
