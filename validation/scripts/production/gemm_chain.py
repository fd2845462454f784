#!/usr/bin/env python3
"""Decode-layer GEMM chains as one CUDA graph against the same GEMMs isolated (issue 10, branch gemm4).

A whole decode step runs each layer's projections (q|k|v, o, gate|up, down) on distinct
weights, back to back inside one graph; h200-production / h200-gemm-small time each GEMM alone, a
graph of launches of one shape over rotating weights past L2. This script measures both on the same
weights, so a difference is the chain's, not the shapes':

  chain      L layers x 4 F.linear (fused q|k|v, gate|up) or 7 (--layout hf: transformers' separate
             q, k, v, gate, up), one graph, in a decode step's layer order, no other kernel
  chain_elt  the same with a small elementwise kernel after each GEMM (y.mul_(1.0): what a norm or a
             residual add puts between the projections of a real step)
  iso_<role> the role's GEMM alone, L launches over the L layers' weights (rotating past L2 as the
             harness does; more copies where L layers' weights fit in 2x L2)

Per variant: graph replay time by CUDA events (a GPU spin queued first, so the host launch is not in
the interval), and one profiled replay set (torch.profiler, kernel start/end): each kernel's duration
and the GPU idle before it. Writes OUT/chain.json after every point (a run cut short keeps what it
measured) and OUT/run.log.

    python3 validation/scripts/production/gemm_chain.py OUT [--budget S] [--layout fused|hf] [--ms 1,8,32,64]
"""
import argparse
import datetime
import json
import math
import os
import statistics
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

# (model, hidden, K/V width (kv heads x head dim), intermediate): models/*.yaml.
MODELS = [("llama3_8b", 4096, 1024, 14336),
          ("llama2_7b", 4096, 4096, 11008),
          ("qwen25_7b", 3584, 512, 18944),
          ("tinyllama", 2048, 256, 5632)]
LAYERS = (4, 16)


def shapes(layout, hidden, kv, inter):
    """role -> (N, K) as nn.Linear stores the weight, in the layer's order. `fused`: q|k|v and gate|up
    as one GEMM each (vLLM, the fused profile); `hf`: transformers' separate q, k, v, gate and up."""
    if layout == "fused":
        return {"qkv": (hidden + 2 * kv, hidden), "o": (hidden, hidden), "gateup": (2 * inter, hidden),
                "down": (hidden, inter)}
    return {"q": (hidden, hidden), "k": (kv, hidden), "v": (kv, hidden), "o": (hidden, hidden),
            "gate": (inter, hidden), "up": (inter, hidden), "down": (hidden, inter)}


def spin_cycles():
    # ~100 us of GPU spin (at ~2 GHz) ahead of the start event: the graph is queued before the GPU reaches it.
    return 200_000


def replay_time(graph, reps, samples=15):
    """Median seconds per replay over `samples` event-timed runs of `reps` replays."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    cyc = spin_cycles()
    out = []
    for _ in range(samples):
        torch.cuda._sleep(cyc)
        a.record()
        for _ in range(reps):
            graph.replay()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b) * 1e-3 / reps)
    return statistics.median(out), min(out), max(out)


def capture(body):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        body()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        body()
    g.replay()
    torch.cuda.synchronize()
    return g


def profile_kernels(graph, reps):
    """Kernel (name, start us, dur us) of `reps` replays, from one torch.profiler trace."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        torch.cuda._sleep(spin_cycles())
        for _ in range(reps):
            graph.replay()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as f:
            tr = json.load(f)
    finally:
        os.remove(path)
    ev = [e for e in tr.get("traceEvents", []) if e.get("cat") == "kernel" and "spin" not in e.get("name", "")]
    ev.sort(key=lambda e: e["ts"])
    return [(e["name"], float(e["ts"]), float(e["dur"])) for e in ev]


def per_position(kern, reps):
    """Per kernel position of one replay: name, median duration and median idle before it (us); the
    first kernel's gap is across replays (graph launch), kept apart."""
    n = len(kern) // reps if reps else 0
    if n == 0 or len(kern) != n * reps:
        return None, len(kern)
    pos = []
    for i in range(n):
        durs = [kern[r * n + i][2] for r in range(reps)]
        gaps = []
        for r in range(reps):
            j = r * n + i
            if j > 0:
                gaps.append(kern[j][1] - (kern[j - 1][1] + kern[j - 1][2]))
        pos.append({"name": kern[i][0][:90], "dur_us": statistics.median(durs),
                    "gap_before_us": statistics.median(gaps) if gaps else None})
    return pos, n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=120.0, help="seconds for the whole run")
    ap.add_argument("--models", default=",".join(m[0] for m in MODELS))
    ap.add_argument("--layout", choices=("fused", "hf"), default="fused")
    ap.add_argument("--ms", default="1,8,32,64", help="token counts (GEMM M)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    logf = open(f"{a.out}/run.log", "a")

    def log(msg):
        line = f"[{time.perf_counter() - t0:7.1f}s] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    torch.cuda.set_device(0)
    p = torch.cuda.get_device_properties(0)
    l2 = getattr(p, "L2_cache_size", 60 << 20) or (60 << 20)
    meta = {"device": {"name": torch.cuda.get_device_name(0), "sm_count": p.multi_processor_count, "l2_bytes": l2,
                       "cc_major": p.major, "cc_minor": p.minor},
            "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "what": "decode-layer GEMM chains in one CUDA graph vs the same GEMMs isolated "
                    "(validation/scripts/production/gemm_chain.py)"}
    log(f"meta {json.dumps(meta)}")
    result = {"schema_version": 1, "meta": meta, "points": []}

    def save():
        tmp = f"{a.out}/chain.json.tmp"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=1)
        os.replace(tmp, f"{a.out}/chain.json")

    dt = torch.bfloat16
    want = set(a.models.split(","))
    stop = False
    ms = [int(v) for v in a.ms.split(",")]
    for name, hidden, kv, inter in MODELS:
        if name not in want or stop:
            continue
        sh = shapes(a.layout, hidden, kv, inter)
        roles = list(sh)
        lmax = max(LAYERS)
        w = {r: [torch.randn(n, k, device="cuda", dtype=dt) * 0.02 for _ in range(lmax)] for r, (n, k) in sh.items()}
        # Isolated rotation: at least lmax weights and more than 2x L2 of them, as harness.py rotates.
        iso_w = {}
        for r, (n, k) in sh.items():
            need = max(lmax, math.ceil(2 * l2 / (2 * n * k)) + 1)
            iso_w[r] = w[r] + [torch.randn(n, k, device="cuda", dtype=dt) * 0.02 for _ in range(need - lmax)]
        for m in ms:
            if time.perf_counter() - t0 > a.budget:
                log(f"budget spent, stopping before {name} m{m}")
                stop = True
                break
            x = {r: torch.randn(m, k, device="cuda", dtype=dt) for r, (n, k) in sh.items()}
            variants = []
            for L in LAYERS:
                def chain(L=L):
                    for l in range(L):
                        for r in roles:
                            F.linear(x[r], w[r][l])

                def chain_elt(L=L):
                    for l in range(L):
                        for r in roles:
                            F.linear(x[r], w[r][l]).mul_(1.0)
                variants.append((f"chain_L{L}", L, chain, len(roles) * L))
                if L == max(LAYERS):
                    variants.append((f"chain_elt_L{L}", L, chain_elt, len(roles) * L))
            for r in roles:
                nw = len(iso_w[r])

                def iso(r=r, nw=nw):
                    for i in range(nw):
                        F.linear(x[r], iso_w[r][i])
                variants.append((f"iso_{r}", nw, iso, nw))
            for vname, L, body, ngemm in variants:
                t1 = time.perf_counter()
                g = capture(body)
                reps = max(1, min(50, int(2e-3 / max(replay_time(g, 1, 3)[0], 1e-6))))
                med, lo, hi = replay_time(g, reps)
                kern = profile_kernels(g, 3)
                pos, nk = per_position(kern, 3)
                pt = {"model": name, "layout": a.layout, "roles": roles, "m": m, "variant": vname, "layers": L, "gemms": ngemm, "replay_s": med,
                      "replay_min_s": lo, "replay_max_s": hi, "replays_per_sample": reps, "kernels_per_replay": nk,
                      "shapes": {r: list(v) for r, v in sh.items()}, "kernels": pos}
                result["points"].append(pt)
                save()
                if pos:
                    ksum = sum(k["dur_us"] for k in pos)
                    gsum = sum(k["gap_before_us"] for k in pos[1:])
                    log(f"{name} m{m} {vname}: replay {med * 1e6:.1f} us ({med * 1e6 / ngemm:.2f}/GEMM), kernels "
                        f"{nk} sum {ksum:.1f} us, gaps {gsum:.1f} us, first-gap {pos[0]['gap_before_us']} "
                        f"[{time.perf_counter() - t1:.1f} s]")
                else:
                    log(f"{name} m{m} {vname}: replay {med * 1e6:.1f} us, kernel trace {nk} events unparsed")
                del g
        del w, iso_w
        torch.cuda.empty_cache()
    save()
    log(f"done in {time.perf_counter() - t0:.1f} s, {len(result['points'])} points")


if __name__ == "__main__":
    main()
