"""h200-hostlease's transformers steps (lead, 2026-12-04, fourteenth session; issue 10): the eager wall predicted
with the host rate `perfmodel calibrate --on-gpu --profile eager` measured on the same lease, against the committed
rate (fitted on another lease's steps). New points of models measured before (none of these batch / context pairs),
each model in its own process (as a user runs one model), the calibration's probe in another, before and after.
hf_grid.py --plan hostlease --models KEY."""

# (model, decode (batch, ctx) points, prefill (batch, ctx) points)
HF_PLAN = {
    "smollm2-1.7b": ([(1, 1500), (6, 3500), (24, 900), (64, 2200)], [(1, 1800)]),
    "llama3-8b": ([(1, 1500), (6, 3500), (24, 900), (64, 2200)], [(1, 1800)]),
    "qwen2.5-7b": ([(1, 1500), (6, 3500), (24, 900), (64, 2200)], [(1, 1800)]),
    "mistral-7b": ([(1, 1500), (6, 3500), (24, 900)], [(1, 1800)]),
    "qwen3-8b": ([(1, 1500), (6, 3500), (24, 900)], [(1, 1800)]),
    "llama2-13b": ([(1, 1500), (6, 3500), (32, 1100)], [(1, 1800)]),
    "gpt2": ([(1, 700), (6, 900), (24, 500), (64, 300)], [(2, 800)]),
}
