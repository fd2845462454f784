#!/usr/bin/env python3
"""Hugging Face transformers eager steps over issue 10's grid (batch 1-128, context 256-8192) for
dense models, none fitted on: the held-out check of `perfmodel decode|prefill --impl eager
--eager-cache contiguous`.

    python3 validation/scripts/production/hf_grid.py OUT [--budget S] [--models a,b] [--plan grid|heldout16|...|heldout22]

Random bf16 weights, SDPA attention (hf_decode.build). Decode: a DynamicCache of ctx tokens kept
contiguous between steps, as generate() leaves it (hf_decode._decode_setup(contiguous=True)); wall
time = median of 10 synchronized steps after 2 warm-ups, GPU kernel time = torch.profiler's sum
over 3 steps. Prefill: the prompt's forward (logits of the last position only, as generate()).
Every point's wall is timed before the model's first kernel profile (since h200-hostlease: a torch.profiler session
slows the host of the process's later eager steps 25-78 %); runs before it interleaved (--interleaved). Points whose KV cache (plus weights) would not fit 141 GB are not in the plan. Writes OUT/hf.json
(steps[] in hf_decode's format) after every point and OUT/run.log.
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import harness  # noqa: E402
import hf_decode  # noqa: E402

# (model, decode (batch, ctx) points, prefill (batch, ctx) points). Llama-3-8B was never measured.
PLAN = {
    "llama3-8b": ([(1, 256), (1, 2048), (1, 8192), (16, 256), (16, 2048), (16, 8192), (64, 2048), (128, 256),
                   (128, 2048)], [(1, 256), (1, 2048), (1, 8192)]),
    "qwen2.5-7b": ([(1, 8192), (64, 1024), (128, 256), (128, 4096)], [(1, 8192)]),
    "llama2-7b": ([(1, 8192), (16, 4096), (64, 1024), (128, 256)], [(1, 256), (1, 8192)]),
    "gpt2": ([(64, 1000), (128, 256)], [(8, 1024)]),  # 1024 positions: decode at ctx 1024 indexes past them
}


def decode_point(m, cfg, key, b, ctx, walls=True, kernels=True):
    step, between, cache, ok = hf_decode._decode_setup(m, cfg, b, ctx, contiguous=True)
    med, q1, q3 = hf_decode._wall(step, 10, 2, between) if walls else (0.0, 0.0, 0.0)
    kt, cats, kcount, top = hf_decode._kernel_profile(step, 3, between) if kernels else (0.0, {}, 0.0, {})
    del step, between, cache
    return dict(model=key, phase="decode", batch=b, ctx=ctx, ok=ok, wall_s=med, wall_q1_s=q1, wall_q3_s=q3,
                kernel_s=kt, kernels_per_step=kcount, kernel_by_category_s=cats, top_kernels_s=top,
                cache_layout="contiguous")


def prefill_point(m, cfg, key, b, ctx, walls=True, kernels=True):
    ids = torch.randint(0, cfg.vocab_size, (b, ctx), device="cuda")

    def prefill():
        return hf_decode._forward(m, ids, None)
    ok = bool(torch.isfinite(prefill().logits.float()).all())
    med, q1, q3 = hf_decode._wall(prefill, 4, 1) if walls else (0.0, 0.0, 0.0)
    kt, cats, kcount, top = hf_decode._kernel_profile(prefill, 2) if kernels else (0.0, {}, 0.0, {})
    return dict(model=key, phase="prefill", batch=b, ctx=ctx, ok=ok, wall_s=med, wall_q1_s=q1, wall_q3_s=q3,
                kernel_s=kt, kernels_per_step=kcount, kernel_by_category_s=cats, top_kernels_s=top,
                cache_layout="none")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=200.0, help="seconds for the whole run")
    ap.add_argument("--models", default=None, help="comma-separated catalogue keys (default: the plan's)")
    ap.add_argument("--plan", default="grid", choices=("grid", "heldout16", "heldout17", "heldout18", "heldout19", "heldout20", "heldout21", "heldout22", "heldout23", "heldout24", "heldout25", "heldout26", "heldout27", "heldout29", "heldout30", "heldout31", "heldout32", "heldout36", "hostlease", "hfgemma", "hfgemma-paired", "hfgemma-window", "hfgemma-mistral", "hfflash"),
                    help="grid: PLAN above; heldout16-24: that module's HF_PLAN (models never measured as steps)")
    ap.add_argument("--sdpa-backend", default="default", choices=("default", "flash"),
                    help="flash: every SDPA call restricted to PyTorch's FlashAttention-2 backend (sdpa_kernel), the kernels "
                         "transformers' flash_attention_2 runs; each step records attn=sdpa_flash")
    ap.add_argument("--walls-first", action="store_true", default=True,
                    help="(the default since h200-hostlease) time every point's wall before any kernel profile of the "
                         "model (a torch.profiler session slows the host's later eager steps in the same process), then "
                         "profile each point")
    ap.add_argument("--interleaved", dest="walls_first", action="store_false",
                    help="each point's wall, then its kernel profile, point after point: how every run before "
                         "h200-hostlease timed its walls (those after a process's first point carry the profiler drag)")
    a = ap.parse_args()
    plan = PLAN
    if a.plan in ("hfgemma-paired", "hfgemma-window", "hfgemma-mistral"):
        plan = getattr(__import__("hfgemma"), {"hfgemma-paired": "HF_PLAN_PAIRED", "hfgemma-window": "HF_PLAN_WINDOW",
                                               "hfgemma-mistral": "HF_PLAN_MISTRAL"}[a.plan])
    elif a.plan != "grid":
        plan = __import__(a.plan).HF_PLAN
    models = a.models.split(",") if a.models else list(plan)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    logf = open(f"{a.out}/run.log", "a")

    def log(s):
        line = f"[{time.perf_counter() - t0:7.1f}s] {s}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()
    harness.init()
    import transformers
    meta = dict(date=datetime.datetime.utcnow().isoformat() + "Z", device=harness.device_meta(),
                torch=torch.__version__, cuda=torch.version.cuda, transformers=transformers.__version__,
                budget_s=a.budget, cache_layout="contiguous")
    steps = []

    def save():
        # Named hf.json with no top-level "cases": not a perfmodel result file (tests/test_results.cpp).
        json.dump(dict(meta=meta, steps=steps), open(f"{a.out}/hf.json", "w"), indent=1)
    log(f"torch {torch.__version__} transformers {transformers.__version__} {meta['device']}")
    from contextlib import nullcontext
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = sdpa_kernel([SDPBackend.FLASH_ATTENTION]) if a.sdpa_backend == "flash" else nullcontext()
    meta["sdpa_backend"] = a.sdpa_backend
    with torch.no_grad(), backend:
        for key in models:
            if time.perf_counter() - t0 > a.budget:
                log(f"budget spent before {key}")
                break
            decode, prefill = plan[key]
            try:
                m, cfg = hf_decode.build(key)
            except Exception:
                log(f"{key}: build failed\n{traceback.format_exc()}")
                continue
            points_all = [(phase, b, ctx, fn) for phase, points, fn in
                          (("decode", decode, decode_point), ("prefill", prefill, prefill_point)) for b, ctx in points]
            # Walls first: every point timed before the model's first profiler session, then each point's kernels.
            passes = [dict(walls=True, kernels=False), dict(walls=False, kernels=True)] if a.walls_first else [{}]
            timed = {}
            for i, kw in enumerate(passes):
                for phase, b, ctx, fn in points_all:
                    if time.perf_counter() - t0 > a.budget:
                        log(f"budget spent before {key} {phase} b{b} ctx{ctx}")
                        break
                    try:
                        r = fn(m, cfg, key, b, ctx, **kw)
                        if a.walls_first and i == 0:
                            timed[(phase, b, ctx)] = r
                            log(f"{key} {phase} b{b} ctx{ctx}: wall {r['wall_s'] * 1e3:.2f} ms (before any profiler)")
                            continue
                        if a.walls_first:
                            if (phase, b, ctx) not in timed:
                                continue
                            w = timed[(phase, b, ctx)]
                            r.update({k: w[k] for k in ("wall_s", "wall_q1_s", "wall_q3_s")}, ok=r["ok"] and w["ok"],
                                     walls_first=True)
                        if a.sdpa_backend == "flash":
                            r["attn"] = "sdpa_flash"
                        steps.append(r)
                        save()
                        log(f"{key} {phase} b{b} ctx{ctx}: wall {r['wall_s'] * 1e3:.2f} ms, kernels "
                            f"{r['kernel_s'] * 1e3:.2f} ms ({r['kernels_per_step']:.0f}), ok {r['ok']}")
                    except Exception:
                        log(f"{key} {phase} b{b} ctx{ctx} failed\n{traceback.format_exc()}")
                    torch.cuda.empty_cache()
            del m
            torch.cuda.empty_cache()
    save()
    log(f"done: {len(steps)} steps")


if __name__ == "__main__":
    main()
