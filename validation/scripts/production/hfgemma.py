"""transformers' Gemma-2 (Gemma2ForCausalLM, random bf16 weights, SDPA) as eager decode and prefill steps: an
architecture no committed step holds (four norms a layer written as GemmaRMSNorm, GeGLU, the embedding's scale,
sliding-window attention on every other layer past 4096 tokens, the final logits' soft-capping). Planned in the tenth
2026-12-04 session before any Gemma-2 lowering was looked at; nothing fitted on it.

    python3 validation/scripts/production/hf_grid.py OUT --plan hfgemma
"""
# (batch, ctx) decode points, prefill points; ctx 6000 runs the local layers' window (4096)
HF_PLAN = {
    "gemma2-9b": ([(1, 1000), (16, 1000), (1, 6000), (8, 6000)], [(1, 2000)]),
}


# The second call (validation/results/h200-hfgemma/run3.sh): Gemma-2-9B again beside Llama-3-8B at the same points, on
# one lease, so that the host's pace of the lease reads off the Llama steps (priced within a few % on earlier leases).
HF_PLAN_PAIRED = {
    "gemma2-9b": ([(1, 1000), (16, 1000), (4, 3000)], []),
    "llama3-8b": ([(1, 1000), (16, 1000), (4, 3000)], []),
}


# The fourth call (run4.sh): past the local layers' window, with Llama-3-8B beside it on the lease.
HF_PLAN_WINDOW = {
    "gemma2-9b": ([(1, 6000), (8, 6000)], []),
    "llama3-8b": ([(1, 6000), (8, 6000)], []),
}


# The fifth call (run5.sh): a second windowed model, every layer windowed (Mistral-7B-v0.1, MistralConfig with its
# 4096-token window), past and below the window; planned after the window's lowering was written, nothing fitted on it.
HF_PLAN_MISTRAL = {
    "mistral-7b": ([(1, 6000), (8, 6000), (8, 3000)], []),
}
