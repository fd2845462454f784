#!/usr/bin/env python3
"""W8A16 as gpt-fast / torchao's int8 weight-only linear runs under torch.compile (issue 12), and
uncompiled (--impls eager_w8a16: what transformers' TorchAoConfig int8 weight-only runs eagerly):
y = F.linear(x, w_int8.to(bf16)) * scale, compiled by Inductor (default mode, static shapes), against
the bf16 F.linear on the same shape. Correctness first (fp32 reference), CUDA-graph replay over
rotating weight sets past 2x L2 (harness.py), median of >= 10 samples; kernel names and durations
from torch.profiler (one call).

    python3 int8wo_compiled.py OUT_DIR [--budget S]
"""
import argparse, json, os, sys, time
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch
import torch.nn.functional as F
import harness

SHAPES = {"l3_qkv": (6144, 4096), "l3_o": (4096, 4096), "l3_gateup": (28672, 4096), "l3_down": (4096, 14336),
          "q2_qkv": (4608, 3584), "q2_down": (3584, 18944)}
MS = (1, 4, 16, 64, 256)
IMPLS = ("compiled_w8a16", "bf16_linear")


def w8a16(x, w, s):
    return F.linear(x, w.to(torch.bfloat16)) * s


def kernels(fn, args):
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            fn(*args)
        torch.cuda.synchronize()
    ev = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    n = len(ev) // 3
    return [{"name": e.name[:120], "dur_us": e.device_time if hasattr(e, "device_time") else e.cuda_time} for e in ev[-n:]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=420)
    ap.add_argument("--impls", default=",".join(IMPLS))
    a = ap.parse_args()
    impls = a.impls.split(",")
    os.makedirs(a.out, exist_ok=True)
    harness.init()
    torch._dynamo.config.cache_size_limit = 256
    t0 = time.time()
    rows = []
    for M in MS:
        for tag, (N, K) in SHAPES.items():
            if time.time() - t0 > a.budget:
                break
            dev = "cuda"
            def make_q():
                return (torch.randn(M, K, device=dev, dtype=torch.bfloat16),
                        torch.randint(-127, 128, (N, K), device=dev, dtype=torch.int8),
                        (torch.rand(N, device=dev, dtype=torch.bfloat16) * 0.01 + 0.001))
            def make_b():
                return (torch.randn(M, K, device=dev, dtype=torch.bfloat16),
                        torch.randn(N, K, device=dev, dtype=torch.bfloat16))
            for impl in impls:
                torch._dynamo.reset()
                fn = (torch.compile(w8a16, dynamic=False) if impl == "compiled_w8a16" else
                      w8a16 if impl == "eager_w8a16" else F.linear)
                make = make_q if impl.endswith("w8a16") else make_b
                def check(s, fn=fn, impl=impl):
                    out = fn(*s).float()
                    if impl.endswith("w8a16"):
                        ref = (s[0].float() @ s[1].float().t()) * s[2].float()
                    else:
                        ref = s[0].float() @ s[1].float().t()
                    return harness.rel_error(out, ref)
                wbytes = N * K * (1 if impl.endswith("w8a16") else 2)
                case = {"name": f"{impl}_{tag}_m{M}", "kernel": "gemm", "dtype": "bf16", "implementation": impl,
                        "m": M, "n": N, "k": K, "flops": 2.0 * M * N * K, "bytes": wbytes + 2 * M * (K + N)}
                tc = time.time()
                r = harness.run_case(case, make, fn, check, wbytes + 2 * M * K, 6.0)
                if r.get("ok"):
                    try:
                        r["kernels"] = kernels(fn, make())
                    except Exception as e:
                        r["kernels_error"] = str(e)[:200]
                r["case_wall_s"] = time.time() - tc
                rows.append(r)
                print(f"{case['name']}: ok={r.get('ok')} {r.get('measured_s') and r['measured_s']*1e6:.2f} us"
                      if r.get("ok") else f"{case['name']}: {r.get('error')}", flush=True)
                # JSON lines (a meta line, then one case a line): not a kernel suite `perfmodel accuracy`
                # would price as bf16 GEMMs.
                with open(os.path.join(a.out, "int8wo_compiled.jsonl"), "w") as f:
                    f.write(json.dumps({"kind": "meta", "schema_version": 1, "device": harness.device_meta(),
                                        "torch": torch.__version__}) + "\n")
                    for row in rows:
                        f.write(json.dumps(dict(kind="case", **row)) + "\n")


if __name__ == "__main__":
    main()
