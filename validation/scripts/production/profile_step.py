#!/usr/bin/env python3
"""One step in an implementation profile's kernels, for `perfmodel validate --on-gpu
--impl fused|eager|compiled` (issue 10, item 5). Random weights, bf16.

    python3 validation/scripts/production/profile_step.py --impl fused|eager|compiled --model KEY
        --phase decode|prefill --batch B --ctx N [--layers L]

fused: the serving engine's kernels, the step built by hand (fused_step.py: cuBLASLt GEMMs over
fused QKV and gate|up weights, compiled add+RMSNorm, rotary+KV write and SiLU*mul, flash decode /
cuDNN prefill SDPA, the whole step in one CUDA graph);
eager: transformers as users run it (hf_decode.py: a DynamicCache of ctx tokens kept contiguous
between steps, as generate() leaves it); compiled: torch.compile(mode="reduce-overhead") with a
StaticCache (hf_compiled.py); compiled prefill: the uncompiled forward into a StaticCache, as
generate() runs the prompt (hf_compiled.measure_static_prefill; torch.compile of the prefill under
reduce-overhead crashed on the H200, and generate() compiles decode only).
The last line of stdout is the result for perfmodel to read:
    profile_step ok=1 wall_s=... kernel_s=... device_s=... kernels=...
(device_s: the CUDA-event time of one call; kernel_s: the profiler's kernel sum; wall_s: host clock.)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import hf_decode  # noqa: E402


def eager(a):
    m, cfg = hf_decode.build(a.model)
    if a.layers:
        raise SystemExit("--layers applies to the compiled profile")
    with torch.no_grad():
        if a.phase == "decode":
            step, between, cache, ok = hf_decode._decode_setup(m, cfg, a.batch, a.ctx, contiguous=True)
            wall, _, _ = hf_decode._wall(step, 10, 2, between)
            kernel, _, kernels, _ = hf_decode._kernel_profile(step, 3, between)
        else:
            ids = torch.randint(0, cfg.vocab_size, (a.batch, a.ctx), device="cuda")

            def step():
                return hf_decode._forward(m, ids, None)
            ok = bool(torch.isfinite(step().logits.float()).all())
            wall, _, _ = hf_decode._wall(step, 4, 1)
            kernel, _, kernels, _ = hf_decode._kernel_profile(step, 2)
    return dict(ok=int(ok), wall_s=wall, kernel_s=kernel, device_s=0.0, kernels=kernels)


def fused(a):
    import fused_step
    r = fused_step.measure_point(a.model, a.phase, a.batch, a.ctx, a.layers)
    return dict(ok=int(r["ok"]), wall_s=r["wall_s"], kernel_s=r["kernel_s"], device_s=r["device_s"],
                kernels=r["kernels"])


def compiled(a):
    import hf_compiled
    m, cfg = hf_compiled._build(a.model, a.layers or hf_decode.hf_config(a.model).num_hidden_layers)
    if a.phase == "prefill":  # generate() runs the prompt uncompiled into its StaticCache (docs/profiles.md)
        ok, wall, kernel, kernels = hf_compiled.measure_static_prefill(m, cfg, a.batch, a.ctx)
        return dict(ok=int(ok), wall_s=wall, kernel_s=kernel, device_s=0.0, kernels=kernels)
    torch._dynamo.config.cache_size_limit = 64
    fwd = torch.compile(m.forward, mode="reduce-overhead", fullgraph=True, dynamic=False)
    r = hf_compiled.measure_point(m, cfg, fwd, "decode", a.batch, a.ctx, a.layers, a.model,
                                  lambda s: print(s, file=sys.stderr, flush=True))
    return dict(ok=int(r["ok"]), wall_s=r["wall_s"], kernel_s=r["kernel_s"], device_s=r["device_s"],
                kernels=r["kernels_per_step"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--impl", choices=["fused", "eager", "compiled"], required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--phase", choices=["decode", "prefill"], default="decode")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--ctx", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=0, help="fused, compiled: cut the model to this many layers")
    ap.add_argument("--sdpa-backend", choices=["default", "flash"], default="default",
                    help="eager: flash holds every SDPA call to PyTorch's FlashAttention-2 backend (perfmodel's "
                         "--attn-implementation flash_attention_2: flash-attn 2's kernels)")
    a = ap.parse_args()
    if a.sdpa_backend == "flash" and a.impl != "eager":
        ap.error("--sdpa-backend flash: eager only")
    torch.cuda.set_device(0)
    from contextlib import nullcontext
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]) if a.sdpa_backend == "flash" else nullcontext():
        r = {"fused": fused, "eager": eager, "compiled": compiled}[a.impl](a)
    print("profile_step " + " ".join(f"{k}={v}" for k, v in r.items()), flush=True)


if __name__ == "__main__":
    main()
