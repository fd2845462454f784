"""transformers eager steps with SDPA held to its FlashAttention-2 backend (lead, 2026-12-04, eleventh session; issue
10, branch flash2): the kernels transformers' attn_implementation="flash_attention_2" runs, priced by
`perfmodel decode|prefill --impl eager --attn-implementation flash_attention_2`. Planned after the flash2 kernels
landed and before any step was measured with them; the same points with the default backend (cuDNN) beside them, on
the same lease.

    OUT=... bash validation/results/h200-hfflash/run.sh
"""

# key: ([(batch, ctx) decode points], [(batch, ctx) prefill points])
HF_PLAN = {
    "llama3-8b": ([(1, 4096), (16, 2048), (64, 1024), (8, 8192)], [(1, 2048), (4, 1024)]),
    "qwen2.5-7b": ([(1, 8192), (32, 2048)], [(1, 4096)]),
}
