#!/usr/bin/env python3
"""Production (`fused` profile) MoE and MLA stand-ins on the H200 (issue 11): no vLLM on the device,
so the kernels a serving engine runs are built here and timed like every other kernel.

    python3 validation/scripts/moe/run_fused.py OUT_DIR [--budget S]

(a) Absorbed MLA decode (mla_decode_triton.py, what FlashMLA / vLLM's TRITON_MLA run): checked
    against an fp32 reference, then timed (harness.run_case: CUDA graph, rotating inputs over 2x
    L2) over batch 1-64 x ctx 512-32768 for DeepSeek-V2-Lite (16 heads) and DeepSeek-V3 (128
    heads), with the KV splits that fill the SMs ("fill") and with vLLM's fixed 4 ("splits4").
(b) One MoE layer (fused_moe_layer.py) replayed as a CUDA graph for Qwen3-30B-A3B, Mixtral-8x7B
    and DeepSeek-V2-Lite at decode batch 1, 4, 16, 64 and one prefill of 2048 tokens: checked
    against an fp32 expert-by-expert reference, timed, and its kernels listed with their device
    time (torch.profiler over eager calls of the same layer).
(c) torch._grouped_mm with routing set by hand (grouped_mm_sweep.py: K at few CTAs, rows per
    expert at a full card), for the eager profile's grouped GEMM model.
Writes OUT_DIR/hf.json (meta, mla_cases, moe_cases, kernel_cases) and OUT_DIR/run.log after every case; a case
started past the budget is skipped, so the run ends inside it.
"""
import argparse
import datetime
import json
import math
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402

import fused_moe_layer as moe  # noqa: E402
import grouped_mm_sweep  # noqa: E402
import harness  # noqa: E402
import mla_decode_triton as mla  # noqa: E402

MLA_MODELS = {"deepseek-v2-lite": 16, "deepseek-v3": 128}
MLA_BATCHES, MLA_CTX = (1, 4, 16, 64), (512, 2048, 8192, 32768)
# (experts, top-k, hidden, expert FFN width, renormalize top-k weights, shared-expert FFN width):
# models/<key>.yaml.
from moe_plans import MOE_MODELS  # noqa: E402
MOE_TOKENS = ((1, "decode"), (4, "decode"), (16, "decode"), (64, "decode"), (2048, "prefill"))


def mla_case(model, heads, b, L, policy):
    scale = mla.softmax_scale()
    splits = mla.fill_splits(b, heads, L) if policy == "fill" else 4
    split_len, used = mla.split_plan(L, splits)
    width = mla.D_LAT + mla.D_PE

    def make_set():
        return (torch.randn(b, heads, width, device="cuda", dtype=torch.bfloat16),
                torch.randn(b, L, width, device="cuda", dtype=torch.bfloat16))

    def fn(q, kv):
        return mla.mla_decode(q, kv, scale, splits)

    def check(s):
        return harness.rel_error(fn(*s).float(), mla.reference(*s, scale))
    case = dict(name=f"mla_decode_{model}_{policy}_b{b}_ctx{L}", kernel="attention_mla_decode", dtype="bf16",
                implementation="triton.mla_decode" + ("" if policy == "fill" else ".splits4"), model=model,
                batch=b, heads=heads, kv_heads=1, q_len=1, kv_len=L, head_dim=width, split_policy=policy,
                splits=used, split_len=split_len,
                flops=2 * b * heads * L * (width + mla.D_LAT),
                bytes=2 * (b * L * width + b * heads * width + b * heads * mla.D_LAT))
    set_bytes = 2 * (b * L * width + b * heads * width)
    return harness.run_case(case, make_set, fn, check, set_bytes, 0.25)


def touched(E, k, T):
    return E * (1 - (1 - k / E) ** T)


def moe_case(model, T, phase, pool, shape):
    E, k, d, I, renorm, shared_I = shape
    expert_bytes = 2 * 3 * d * I
    set_bytes = int(2 * T * d + touched(E, k, T) * expert_bytes + 2 * E * d + 2 * 3 * d * shared_I)
    made = [0]

    def make_set():
        made[0] += 1
        return (torch.randn(T, d, device="cuda", dtype=torch.bfloat16), pool[made[0] % len(pool)])

    def fn(x, wts):
        return moe.moe_layer(x, wts, k, renorm)

    def check(s):
        return harness.rel_error(fn(*s).float(), moe.reference(*s, k, renorm))
    case = dict(name=f"moe_layer_{model}_{phase}_T{T}", kernel="moe_layer", dtype="bf16",
                implementation="torch._grouped_mm+triton (graph)", model=model, phase=phase, tokens=T,
                experts=E, top_k=k, hidden=d, expert_intermediate=I, shared_intermediate=shared_I,
                renormalize=renorm, expected_experts_touched=touched(E, k, T), weight_copies=len(pool),
                flops=2 * T * k * 3 * d * I + 2 * T * E * d + 2 * T * 3 * d * shared_I, bytes=set_bytes)
    r = harness.run_case(case, make_set, fn, check, set_bytes, 0.3)
    if r["ok"]:
        r["kernel_device_s"] = kernel_times(fn, make_set())
    return r


def kernel_times(fn, s, reps=3):
    """Device time per call of each kernel the layer launches (eager calls under torch.profiler:
    a kernel's time does not depend on the graph replaying it)."""
    from torch.profiler import ProfilerActivity, profile
    fn(*s)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn(*s)
        torch.cuda.synchronize()
    acc = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            n, t = acc.get(e.name, (0, 0.0))
            acc[e.name] = (n + 1, t + e.time_range.elapsed_us() * 1e-6)
    out = [dict(name=name[:200], calls_per_layer=n / reps, device_s=t / reps) for name, (n, t) in acc.items()]
    return sorted(out, key=lambda r: -r["device_s"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=200.0, help="seconds for the whole run")
    ap.add_argument("--no-mla", action="store_true")
    ap.add_argument("--no-moe", action="store_true")
    ap.add_argument("--no-sweep", action="store_true", help="skip the torch._grouped_mm routing sweep")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    deadline = t0 + a.budget
    logf = open(f"{a.out}/run.log", "a")

    def log(s):
        line = f"[{time.perf_counter() - t0:7.1f}s] {s}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()
    harness.init()
    import triton
    meta = dict(date=datetime.datetime.utcnow().isoformat() + "Z", device=harness.device_meta(),
                torch=torch.__version__, cuda=torch.version.cuda, triton=triton.__version__, budget_s=a.budget,
                env={k: os.environ.get(k) for k in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST",
                                                     "NVSHMEM_DISABLE_NVLS", "CUDA_VISIBLE_DEVICES")})
    mla_cases, moe_cases, sweep_cases = [], [], []

    def save():
        json.dump(dict(meta=meta, mla_cases=mla_cases, moe_cases=moe_cases, kernel_cases=sweep_cases), open(f"{a.out}/hf.json", "w"), indent=1)
    log(f"torch {torch.__version__} triton {triton.__version__} {meta['device']}")
    save()
    with torch.no_grad():
        # MLA gets at most 45 % of the budget; the MoE layers the rest.
        mla_end = t0 + 0.45 * a.budget
        for policy in () if a.no_mla else ("fill", "splits4"):
            for model, heads in MLA_MODELS.items():
                for b in MLA_BATCHES:
                    for L in MLA_CTX:
                        if time.perf_counter() > mla_end:
                            break
                        try:
                            r = mla_case(model, heads, b, L, policy)
                        except Exception:
                            r = dict(name=f"mla_decode_{model}_{policy}_b{b}_ctx{L}", ok=False,
                                     error=traceback.format_exc()[-800:])
                        mla_cases.append(r)
                        log(f"{r['name']}: ok {r['ok']} {r.get('error', '')} splits {r.get('splits')} "
                            f"median {(r.get('median_s') or 0) * 1e6:.1f} us rel {r.get('max_rel_error')}")
                        save()
                        torch.cuda.empty_cache()
        for model, shape in () if a.no_moe else MOE_MODELS.items():
            if time.perf_counter() > deadline - 10:
                log(f"{model}: skipped (budget)")
                continue
            try:
                E, k, d, I, renorm, shared_I = shape
                layer_bytes = 2 * E * 3 * d * I
                copies = max(2, min(4, math.ceil(4 * harness.L2_BYTES / layer_bytes)))
                gen = torch.Generator(device="cuda").manual_seed(0)
                pool = [moe.make_weights(E, d, I, shared_I, "cuda", gen) for _ in range(copies)]
                for T, phase in MOE_TOKENS:
                    if time.perf_counter() > deadline - 5:
                        break
                    try:
                        r = moe_case(model, T, phase, pool, shape)
                    except Exception:
                        r = dict(name=f"moe_layer_{model}_{phase}_T{T}", ok=False, error=traceback.format_exc()[-800:])
                    moe_cases.append(r)
                    top = ", ".join(f"{x['name'][:40]} {x['device_s'] * 1e6:.1f}" for x in r.get("kernel_device_s", [])[:4])
                    log(f"{r['name']}: ok {r['ok']} {r.get('error', '')} median {(r.get('median_s') or 0) * 1e6:.1f} us "
                        f"rel {r.get('max_rel_error')} graph {r.get('graph')} | {top}")
                    save()
                del pool
            except Exception:
                log(f"{model} failed: {traceback.format_exc()[-1200:]}")
            torch.cuda.empty_cache()
        # The grouped_mm sweep last: 13 cases, a few seconds (eager profile, not fused).
        for tag, g, r, N, K in () if a.no_sweep else grouped_mm_sweep.SWEEP:
            if time.perf_counter() > deadline:
                break
            try:
                c = grouped_mm_sweep.case(tag, g, r, N, K)
            except Exception:
                c = dict(name=f"grouped_mm_sweep_{tag}", ok=False, error=traceback.format_exc()[-800:])
            sweep_cases.append(c)
            log(f"{c['name']}: ok {c['ok']} {c.get('error', '')} median {(c.get('median_s') or 0) * 1e6:.1f} us")
            save()
            torch.cuda.empty_cache()
    log(f"done in {time.perf_counter() - t0:.1f} s: {len(mla_cases)} MLA cases, {len(moe_cases)} MoE layers, "
        f"{len(sweep_cases)} sweep cases")
    save()


if __name__ == "__main__":
    main()
