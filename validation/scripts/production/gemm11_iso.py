#!/usr/bin/env python3
"""Decode GEMMs alone, per kernel with its grid (issue 10, branch block11).

Each decode-layer projection of TinyLlama, Llama-3-8B and Qwen2.5-7B in the fused layout (q|k|v, o,
gate|up, down: gemm_chain.shapes) at M tokens, run as h200-gemm-chain's `iso_<role>` does (one CUDA
graph of F.linear launches over rotating weights past L2: the single-call harness's method), one
profiled replay set: every kernel's name, duration, idle before it and grid (CTAs), so the main
kernel's tile and split-K and the splitKreduce are read off per call. The same GEMMs inside the fused
step are fused_gaps.py's traces (same lease). Writes OUT/iso.jsonl, one line per (model, M, role).

    python3 validation/scripts/production/gemm11_iso.py OUT [--ms 1,2,4,8,16,32,64,128]
"""
import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from gemm_chain import MODELS, capture, replay_time, shapes, spin_cycles  # noqa: E402

WANT = ("tinyllama", "llama3_8b", "qwen25_7b")


def profile_rows(graph, reps):
    """[name, start us, dur us, CTAs] of every kernel of `reps` replays (torch.profiler chrome trace)."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        torch.cuda._sleep(spin_cycles())
        for _ in range(reps):
            graph.replay()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    prof.export_chrome_trace(path)
    tr = json.load(open(path))
    os.remove(path)
    ev = [e for e in tr.get("traceEvents", []) if e.get("cat") == "kernel" and "sleep" not in e.get("name", "")
          and "spin" not in e.get("name", "")]
    ev.sort(key=lambda e: e["ts"])
    out = []
    for e in ev:
        g = e.get("args", {}).get("grid", [0, 0, 0])
        out.append([e["name"][:90], float(e["ts"]), float(e["dur"]), int(g[0] * g[1] * g[2]) if len(g) == 3 else 0,
                    list(g)])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ms", default="1,2,4,8,16,32,64,128")
    ap.add_argument("--budget", type=float, default=90)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 60 << 20) or (60 << 20)
    dt = torch.bfloat16
    f = open(f"{a.out}/iso.jsonl", "a")
    for name, hidden, kv, inter in MODELS:
        if name not in WANT:
            continue
        sh = shapes("fused", hidden, kv, inter)
        w = {r: [torch.randn(n, k, device="cuda", dtype=dt) * 0.02
                 for _ in range(max(8, math.ceil(2 * l2 / (2 * n * k)) + 1))] for r, (n, k) in sh.items()}
        for m in [int(v) for v in a.ms.split(",")]:
            if time.perf_counter() - t0 > a.budget:
                print(f"budget spent before {name} m{m}", flush=True)
                break
            for r, (n, k) in sh.items():
                x = torch.randn(m, k, device="cuda", dtype=dt)
                ref = (x.float() @ w[r][0].float().t())
                err = ((F.linear(x, w[r][0]).float() - ref).norm() / ref.norm()).item()

                def body(r=r, x=x):
                    for wi in w[r]:
                        F.linear(x, wi)
                g = capture(body)
                med, lo, hi = replay_time(g, 4, 9)
                rows = profile_rows(g, 3)
                per = len(rows) // 3
                kern = rows[per:]  # the last two replays (the first after the profiler's start)
                by = {}
                for i, (kn, ts, du, ctas, grid) in enumerate(kern):
                    gap = ts - (kern[i - 1][1] + kern[i - 1][2]) if i else None
                    d = by.setdefault(kn, {"name": kn, "ctas": ctas, "grid": grid, "durs": [], "gaps": []})
                    d["durs"].append(du)
                    if gap is not None:
                        d["gaps"].append(gap)
                ks = [{"name": d["name"], "ctas": d["ctas"], "grid": d["grid"], "count": len(d["durs"]),
                       "dur_us": statistics.median(d["durs"]), "gap_before_us": statistics.median(d["gaps"]) if d["gaps"] else None}
                      for d in by.values()]
                pt = {"model": name, "m": m, "role": r, "n": n, "k": k, "launches": len(w[r]), "rel_err": err,
                      "replay_per_gemm_us": med * 1e6 / len(w[r]), "kernels": ks}
                f.write(json.dumps(pt) + "\n")
                f.flush()
                print(f"{name} m{m} {r}: {med * 1e6 / len(w[r]):.2f} us/GEMM err {err:.1e} " +
                      " | ".join(f"{kk['name'][:44]} x{kk['ctas']} {kk['dur_us']:.2f}" for kk in ks), flush=True)
                del g
        del w
        torch.cuda.empty_cache()
    print(f"done in {time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
