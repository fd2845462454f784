#!/usr/bin/env python3
"""Why Inductor's prefill rotary (fused_step.py's _rope_kv) runs 2-4.4x slower inside the fused
step than alone (h200-gemm7): one experiment, two factors crossed (branch rope10, issue 10).

    python3 validation/scripts/production/rope10.py OUT_DIR [TIME_LIMIT_S]

Factor 1, the compile history of the rope function (hypothesis b):
  seq    fused_step.py's sweep order replayed on one fresh Kernels(): decode at batches
         1,8,32,64,128 x ctx 512,2048,4096, then prefill (batch 1) at 512, 2048, 4096, under
         no_grad, each point one call with the step's shapes (this is what compiles: the graphs
         the sweep's prefill steps ran);
  fresh  a second fresh Kernels() that sees prefill sizes only (512, 2048, 4096), as gemm7's
         'dynamic' variant saw them after its few decode warm-ups.
Factor 2, the context (hypotheses c, d; a is equal by construction: both read q|k|v out of one
contiguous [tokens, (H+2Hkv) d] GEMM output):
  alone  the compiled function called on 4 rotating input sets (beyond L2 from 2048 tokens);
  step   fused_step.Step (prefill, batch 1, LAYERS layers) captured in one CUDA graph and replayed,
         the rope kernels right after the qkv GEMM that writes their input.
Per kernel: mean device us per call (torch.profiler, CUDA activity), and the launch's grid, block
and registers from the profiler's trace (so XBLOCK = elements / grid). SM clock read after each
profile (NVML through torch.cuda.clock_rate). Correctness: the compiled q and K/V cache against the
eager function on every alone point; fused_step.check_layer (layer 0 against fp32) on each step.
"""
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.getcwd(), "validation/scripts/production"))
import torch  # noqa: E402

import fused_step as fs  # noqa: E402

OUT = sys.argv[1]
LIMIT = float(sys.argv[2]) if len(sys.argv) > 2 else 240.0
T0 = time.time()
BF16 = torch.bfloat16
MODELS = ["tinyllama-1.1b", "llama3-8b", "qwen2.5-7b"]  # the sweep's order (h200-fused-step-cudnn)
LAYERS = 2
BATCHES, CTXS, PREFILL = (1, 8, 32, 64, 128), (512, 2048, 4096), (512, 2048, 4096)


def rope_args(s, b, ctx, phase):
    t = b if phase == "decode" else ctx
    qkv = torch.randn(t, s.qkv_out, device="cuda", dtype=BF16)
    if phase == "decode":
        pos = torch.full((b,), ctx - 1, device="cuda", dtype=torch.long)
        slots = torch.arange(b, device="cuda") * ctx + ctx - 1
    else:
        pos, slots = torch.arange(ctx, device="cuda"), torch.arange(ctx, device="cuda")
    shape = (b * ctx, s.kv_heads, s.head_dim)
    kc = torch.randn(shape, device="cuda", dtype=BF16)
    vc = torch.randn(shape, device="cuda", dtype=BF16)
    return (qkv, fs._cos_sin(ctx, s.head_dim), pos, slots, kc, vc, s.heads, s.kv_heads, s.head_dim)


def traced(fn, reps):
    """{kernel: [mean us per call, launches per call, grid, block, registers]} over reps calls."""
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for i in range(reps):
            fn(i)
        torch.cuda.synchronize()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    ev = json.load(open(path)).get("traceEvents", [])
    os.remove(path)
    out = {}
    for e in ev:
        if e.get("cat") != "kernel":
            continue
        a = e.get("args", {})
        r = out.setdefault(e["name"], [0.0, 0, a.get("grid"), a.get("block"), a.get("registers per thread")])
        r[0] += e.get("dur", 0.0)
        r[1] += 1
    for r in out.values():
        r[0], r[1] = round(r[0] / reps, 3), r[1] / reps
    try:
        clk = torch.cuda.clock_rate()
    except Exception:  # no NVML on the machine
        clk = 0
    return out, clk


def alone(k, s, t):
    sets = [rope_args(s, 1, t, "prefill") for _ in range(4)]
    a = sets[0]
    rk, rv = a[4].clone(), a[5].clone()
    q_ref = fs._rope_kv(a[0], a[1], a[2], a[3], rk, rv, *a[6:])
    q = k.rope_kv(*a)
    err = [float((q.float() - q_ref.float()).abs().max()), float((a[4].float() - rk.float()).abs().max()),
           float((a[5].float() - rv.float()).abs().max())]
    for x in sets:
        k.rope_kv(*x)
    kern, clk = traced(lambda i: k.rope_kv(*sets[i % 4]), 20)
    return dict(max_abs_err=err, kernels=kern, sm_clock_mhz=clk)


def in_step(s, w, k, t):
    st = fs.Step(s, w, k, "prefill", 1, t)
    ok, errs = fs.check_layer(st)
    for _ in range(2):
        st.forward()
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        st.forward()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        logits = st.forward()
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    kern, clk = traced(lambda i: g.replay(), 5)
    finite = bool(torch.isfinite(logits.float()).all())
    del g, st, logits
    torch.cuda.empty_cache()
    return dict(correct=ok, check_rel_errors=errs, finite=finite,
                kernels={n: [v[0] / LAYERS, v[1] / LAYERS] + v[2:] for n, v in kern.items()
                         if "triton" in n}, sm_clock_mhz=clk)


def left():
    return LIMIT - (time.time() - T0)


def main():
    os.makedirs(OUT, exist_ok=True)
    res = dict(device=torch.cuda.get_device_name(0), torch=torch.__version__, layers=LAYERS, rows=[],
               date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    save = lambda: json.dump(res, open(os.path.join(OUT, "rope10.json"), "w"), indent=1)  # noqa: E731
    torch.cuda.set_device(0)
    with torch.no_grad():
        for key in MODELS:
            if left() < 30:
                print(f"{key}: skipped, {left():.0f} s left", flush=True)
                continue
            s = fs.Spec(key, LAYERS)
            w = fs.Weights(s)
            for variant in ("seq", "fresh"):
                k = fs.Kernels()  # torch._dynamo.reset() inside
                tc = time.time()
                if variant == "seq":
                    for ctx in CTXS:
                        for b in BATCHES:
                            k.rope_kv(*rope_args(s, b, ctx, "decode"))
                print(f"{key} {variant}: decode sequence compiled in {time.time() - tc:.1f} s", flush=True)
                for t in PREFILL:
                    if left() < 15:
                        print(f"{key} {variant} {t}: skipped, {left():.0f} s left", flush=True)
                        continue
                    k.rope_kv(*rope_args(s, 1, t, "prefill"))  # the prefill point's compile
                    row = dict(model=key, variant=variant, tokens=t, heads=s.heads, kv_heads=s.kv_heads,
                               head_dim=s.head_dim, alone=alone(k, s, t))
                    if t > 512:
                        row["step"] = in_step(s, w, k, t)
                    res["rows"].append(row)
                    save()
                    for ctxname in ("alone", "step"):
                        if ctxname in row:
                            r = row[ctxname]
                            print(f"{key} {variant} {t} {ctxname} clk {r['sm_clock_mhz']}"
                                  f" {r.get('max_abs_err', r.get('check_rel_errors'))}", flush=True)
                            for n, v in r["kernels"].items():
                                if "triton" in n:
                                    print(f"    {v[0]:8.2f} us grid {v[2]} block {v[3]} regs {v[4]}  {n[-60:]}",
                                          flush=True)
            del w
            torch.cuda.empty_cache()
    print(f"done in {time.time() - T0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
