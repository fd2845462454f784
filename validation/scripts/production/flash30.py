"""A fourteenth held-out set, planned in 2026-12-04's eleventh session (lead; issue 10) after branch flash2 landed
(80e2e95, 534769f) and before it was measured: PyTorch SDPA's FlashAttention-2 (`flash`) and cuDNN kernels at shapes
no committed set holds, the first measured after FlashAttention-2 got its own tiles. Nothing is fitted on it.

    bash validation/results/h200-flash30/f30.sh     # run_all.py --shapes flash30 --groups attention

Heads of models never measured here (from their Hugging Face config.json): Yi-1.5-34B (56 / 8), StarCoder2-15B
(48 / 4), Phi-3-medium (40 / 10), Llama-3.1-405B at tensor parallel 8 (16 / 1), Falcon-40B (128 / 8 of dim 64),
Gemma-7B (16 / 16 of dim 256), Phi-3.5-mini (32 / 32 of dim 96: a head dim no set holds), Mixtral-8x22B (48 / 8).
Prefill spans one long sequence, mid batches, and the batched short sequences (128-777 tokens, tile multiples and
not) where FlashAttention-2's masking branch dominates; decode spans its split and non-split paths.
"""

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 56, 8, 12000, 128), (3, 56, 8, 3000, 128), (24, 56, 8, 640, 128), (64, 56, 8, 333, 128),
    (1, 48, 4, 30000, 128), (8, 48, 4, 2000, 128), (32, 48, 4, 777, 128),
    (1, 40, 10, 18000, 128), (12, 40, 10, 1111, 128), (96, 40, 10, 256, 128),
    (1, 16, 1, 100000, 128), (16, 16, 1, 4096, 128), (128, 16, 1, 400, 128),
    (1, 128, 8, 6000, 64), (16, 128, 8, 512, 64), (48, 128, 8, 350, 64),
    (1, 16, 16, 20000, 256), (10, 16, 16, 1800, 256), (80, 16, 16, 300, 256),
    (1, 32, 32, 9000, 96), (20, 32, 32, 900, 96),
    (2, 48, 8, 40000, 128), (200, 48, 8, 128, 128),
    (1, 24, 8, 2048, 128), (1, 8, 8, 1024, 128), (1, 16, 2, 700, 64),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 56, 8, 50000, 128), (40, 56, 8, 3000, 128), (200, 56, 8, 900, 128),
    (2, 48, 4, 70000, 128), (64, 48, 4, 2500, 128),
    (1, 40, 10, 8000, 128), (96, 40, 10, 1500, 128),
    (4, 16, 1, 100000, 128), (256, 16, 1, 3000, 128),
    (1, 128, 8, 20000, 64), (30, 128, 8, 4000, 64),
    (1, 16, 16, 30000, 256), (50, 16, 16, 2000, 256),
    (1, 32, 32, 12000, 96), (60, 32, 32, 1000, 96),
    (8, 32, 8, 16000, 128), (150, 32, 8, 600, 128), (12, 24, 8, 5000, 128),
]
BACKENDS = ("flash", "cudnn")
