"""A sixteenth held-out set, planned at the 2026-12-05 sixteenth session (lead; issue 10) after branch hostclean
committed the eager host per top-level ATen call (host_per_aten 11.66 us, fitted on one lease's walls-first steps,
h200-hostlease) and before anything else changed: the committed host, and `calibrate --on-gpu --profile eager`'s
two-depth probe, checked on another lease's walls no profiler preceded. Nothing is fitted on it.

    OUT=... bash validation/results/h200-heldout32/run.sh     # the probe, then hf_grid.py --plan heldout32, one model a process

Eleven models, one process each (as a user runs one model), every wall timed before the model's first torch.profiler
session (hf_grid.py's default since h200-hostlease): the host-bound small models of four transformers classes
(Llama, Qwen2, Qwen3, GPT-2) at batch 1, where the wall is the host's, and larger ones at batches where the GPU
takes over. No (batch, ctx) pair repeats a committed set's point of the same model.
"""

# (model, decode (batch, ctx) points, prefill (batch, ctx) points)
HF_PLAN = {
    "smollm2-135m": ([(1, 900), (16, 2500)], [(2, 700)]),
    "qwen2.5-0.5b": ([(1, 1300), (12, 3000)], [(1, 1600)]),
    "tinyllama-1.1b": ([(1, 1700), (40, 900)], [(2, 1200)]),
    "llama3.2-1b": ([(1, 2300), (64, 1700)], [(1, 2600)]),
    "qwen3-4b": ([(1, 1700), (30, 800)], [(1, 2100)]),
    "yi-6b": ([(1, 1200), (36, 1600)], [(1, 1400)]),
    "falcon3-7b": ([(1, 700), (16, 2100)], [(1, 900)]),
    "llama2-7b": ([(1, 1100), (40, 700)], [(1, 1300)]),
    "mistral-nemo-12b": ([(1, 2900), (20, 1300)], [(1, 1100)]),
    "qwen2.5-14b": ([(1, 1100), (40, 900)], [(1, 900)]),
    "gpt2-xl": ([(1, 400), (24, 600)], [(4, 500)]),
}
