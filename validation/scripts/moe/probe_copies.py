#!/usr/bin/env python3
"""Where the copy kernels of a Hugging Face MoE/MLA decode step come from, and whether they are an
artefact of how run_moe.py resets the cache (issue 11, validation, item 3).

    python3 validation/scripts/moe/probe_copies.py OUT_DIR

run_moe.py (through hf_decode._decode_setup) crops the DynamicCache back to ctx between steps:
the cropped keys/values are views over ctx+1 positions, not contiguous, whereas inside generate()
each step's torch.cat leaves a contiguous cache. Per (model, batch, ctx) this measures the step's
kernel time both ways ("cropped": as run_moe.py; "contiguous": the cropped tensors cloned
contiguous between steps, outside the profiled window), and writes the profiler's per-ATen-op
device-time table with input shapes and Python stacks (top ops) for the cropped step.
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import hf_decode  # noqa: E402
import run_moe  # noqa: E402


def contiguous_cache(cache):
    for layer in cache.layers:
        layer.keys = layer.keys.contiguous()
        layer.values = layer.values.contiguous()


def kernel_time(step, between, n=3, **kw):
    """Mean GPU kernel time of n steps, each profiled alone (between() outside the window)."""
    tot, cats, prof = 0.0, {}, None
    for _ in range(n):
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU], **kw) as prof:
            step()
            torch.cuda.synchronize()
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                us = e.time_range.elapsed_us()
                tot += us
                c = hf_decode.category(e.name)
                cats[c] = cats.get(c, 0) + us
        between()
    return tot * 1e-6 / n, {c: v * 1e-6 / n for c, v in sorted(cats.items())}, prof


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    t0 = time.perf_counter()
    res = []
    table = open(f"{out}/probe_ops.txt", "w")
    for key, points in (("deepseek-v2-lite", [(64, 2048), (16, 2048)]), ("qwen3-30b-a3b", [(64, 4096), (16, 2048)])):
        m, cfg = run_moe.build(key)
        with torch.no_grad():
            for b, ctx in points:
                step, between, cache, ok = hf_decode._decode_setup(m, cfg, b, ctx)
                for _ in range(2):
                    step()
                    between()
                kt, cats, prof = kernel_time(step, between, n=1, record_shapes=True, with_stack=True)
                table.write(f"==== {key} decode b{b} ctx{ctx}, cropped cache: {kt * 1e3:.2f} ms kernels\n")
                table.write(prof.key_averages(group_by_input_shape=True).table(
                    sort_by="self_cuda_time_total", row_limit=18, max_name_column_width=40,
                    max_shapes_column_width=90) + "\n")
                table.write(prof.key_averages(group_by_stack_n=6).table(
                    sort_by="self_cuda_time_total", row_limit=8, max_name_column_width=40,
                    max_src_column_width=160) + "\n")
                table.flush()
                kt_c, cats_c, _ = kernel_time(step, between)

                def between_contig():
                    between()
                    contiguous_cache(cache)
                try:
                    contiguous_cache(cache)
                    step()
                    between_contig()
                    kt_k, cats_k, _ = kernel_time(step, between_contig)
                except Exception as e:  # a cache class without .layers[i].keys: recorded, not fatal
                    kt_k, cats_k = float("nan"), {}
                    print(f"contiguous cache failed: {type(e).__name__}: {e}"[:300], flush=True)
                r = dict(model=key, batch=b, ctx=ctx, ok=ok, cropped_kernel_s=kt_c, cropped_by_category_s=cats_c,
                         contiguous_kernel_s=kt_k, contiguous_by_category_s=cats_k)
                res.append(r)
                print(f"[{time.perf_counter() - t0:6.1f}s] {key} b{b} ctx{ctx}: cropped {kt_c * 1e3:.2f} ms "
                      f"{ {c: round(v * 1e3, 2) for c, v in cats_c.items()} } | contiguous {kt_k * 1e3:.2f} ms "
                      f"{ {c: round(v * 1e3, 2) for c, v in cats_k.items()} }", flush=True)
                json.dump(dict(probe=res), open(f"{out}/hf.json", "w"), indent=1)  # see run_moe.save
                del step, between, cache
                torch.cuda.empty_cache()
        del m
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
