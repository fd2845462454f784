#!/usr/bin/env python3
"""Branch hostmod2: per nn.Module class, what a transformers eager step dispatches from the host.

    python3 host_counts.py OUT [--budget S]

For each model (random bf16 weights from models/<key>.yaml, SDPA, depths 2 and 3, decode b1 over a
DynamicCache of 256 tokens, and prefill b1 of 256 tokens) one step is run under torch.profiler
with every nn.Module call wrapped in record_function("mod::<Class>") by global forward hooks.
Counted per step and per innermost module class: module calls, top-level ATen ops (an aten:: event
with no aten:: ancestor: what Python dispatched), those that reach a CUDA launch / memcpy / memset
(runtime events under them), the runtime launches, and Python-level torch calls (TorchFunctionMode,
names kept). Plus the step's wall (median of 10 synchronized steps, this lease's host).
Writes OUT/counts.jsonl (one record a line) and OUT/run.log.
"""
import json
import os
import statistics
import sys
import time
import traceback

sys.path.insert(0, "validation/scripts/production")
sys.path.insert(0, "validation/scripts/moe")
import torch  # noqa: E402

import hf_decode  # noqa: E402

OUT = sys.argv[1]
BUDGET = float(sys.argv[sys.argv.index("--budget") + 1]) if "--budget" in sys.argv else 200.0
T0 = time.perf_counter()
MODELS = ["qwen3-30b-a3b", "llama2-7b", "gpt2", "deepseek-v2-lite", "mixtral-8x7b", "qwen2.5-7b", "mistral-7b"]
MOE = {"qwen3-30b-a3b", "deepseek-v2-lite", "mixtral-8x7b"}
LAUNCH = ("cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernelEx", "cudaMemcpyAsync",
          "cudaMemsetAsync", "cudaMemcpy", "cudaMemset", "cudaLaunchCooperativeKernel")


def log(s):
    line = f"[{time.perf_counter() - T0:7.1f}s] {s}"
    print(line, flush=True)
    with open(f"{OUT}/run.log", "a") as f:
        f.write(line + "\n")


STACK = []


def pre(mod, inp):
    rf = torch.autograd.profiler.record_function("mod::" + type(mod).__name__)
    rf.__enter__()
    STACK.append((type(mod).__name__, rf))


def post(mod, inp, out):
    name, rf = STACK.pop()
    rf.__exit__(None, None, None)


def torch_calls(fn):
    from torch.overrides import TorchFunctionMode
    by = {}

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            cls = STACK[-1][0] if STACK else "-"
            n = getattr(func, "__qualname__", None) or getattr(func, "__name__", str(func))
            d = by.setdefault(cls, {})
            d[n] = d.get(n, 0) + 1
            return func(*args, **(kwargs or {}))
    with Mode():
        fn()
    torch.cuda.synchronize()
    return by


def profile_counts(fn):
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    evs = prof.events()
    kernels = sum(1 for e in evs if e.device_type == torch.autograd.DeviceType.CUDA)
    mods, aten = {}, {}

    def launches(e):
        n = 1 if e.name in LAUNCH else 0
        return n + sum(launches(c) for c in e.cpu_children)
    for e in evs:
        if e.device_type != torch.autograd.DeviceType.CPU:
            continue
        if e.name.startswith("mod::"):
            c = e.name[5:]
            mods[c] = mods.get(c, 0) + 1
            continue
        if not e.name.startswith("aten::"):
            continue
        p, cls, top = e.cpu_parent, None, True
        while p is not None:
            if p.name.startswith("aten::"):
                top = False
                break
            if cls is None and p.name.startswith("mod::"):
                cls = p.name[5:]
            p = p.cpu_parent
        if not top:
            continue
        n = launches(e)
        d = aten.setdefault(cls or "-", {})
        r = d.setdefault(e.name[6:], [0, 0, 0])
        r[0] += 1
        r[1] += 1 if n else 0
        r[2] += n
    return kernels, mods, aten


def build(key, layers):
    if key in MOE:
        import run_moe
        cfg = run_moe.hf_config(key)
    else:
        cfg = hf_decode.hf_config(key)
    return hf_decode.build_cut(cfg, layers)


def point(m, cfg, key, layers, phase, b=1, ctx=256):
    with torch.no_grad():
        if phase == "decode":
            step, between, cache, ok = hf_decode._decode_setup(m, cfg, b, ctx, contiguous=False)
        else:
            ids = torch.randint(0, cfg.vocab_size, (b, ctx), device="cuda")

            def step():
                return hf_decode._forward(m, ids, None)
            between = None
            step()
        wall, q1, q3 = hf_decode._wall(step, 10, 2, between)
        h1 = torch.nn.modules.module.register_module_forward_pre_hook(pre)
        h2 = torch.nn.modules.module.register_module_forward_hook(post)
        try:
            kernels, mods, aten = profile_counts(step)
            if between:
                between()
            calls = torch_calls(step)
            if between:
                between()
        finally:
            h1.remove()
            h2.remove()
    tot = sum(r[0] for d in aten.values() for r in d.values())
    lau = sum(r[1] for d in aten.values() for r in d.values())
    rec = dict(model=key, layers=layers, phase=phase, batch=b, ctx=ctx, wall_s=wall, wall_q1_s=q1, wall_q3_s=q3,
               kernels=kernels, module_calls=sum(mods.values()), aten_top=tot, aten_top_launching=lau,
               torch_calls=sum(sum(d.values()) for d in calls.values()), modules=mods, aten=aten, calls=calls)
    with open(f"{OUT}/counts.jsonl", "a") as f:
        f.write(json.dumps(rec) + "\n")
    log(f"{key} L{layers} {phase}: wall {wall * 1e3:.2f} ms kernels {kernels} modules {rec['module_calls']} "
        f"aten {tot} ({lau} launching) torch calls {rec['torch_calls']}")


def main():
    os.makedirs(OUT, exist_ok=True)
    log(f"torch {torch.__version__}")
    import transformers
    log(f"transformers {transformers.__version__}")
    for key in MODELS:
        for layers in (2, 3):
            if time.perf_counter() - T0 > BUDGET:
                log(f"budget: skip {key} L{layers}")
                continue
            try:
                m, cfg = build(key, layers)
            except Exception:
                log(f"{key} L{layers} build failed:\n{traceback.format_exc()}")
                continue
            for phase in ("decode", "prefill"):
                try:
                    point(m, cfg, key, layers, phase)
                except Exception:
                    log(f"{key} L{layers} {phase} failed:\n{traceback.format_exc()}")
            del m
            torch.cuda.empty_cache()
    log("done")


if __name__ == "__main__":
    main()
