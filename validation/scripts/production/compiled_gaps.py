#!/usr/bin/env python3
"""Compiled decode steps at new depths and shapes, with the time outside the kernels taken apart
(issue 10, task graph: validation/results/h200-compiled2). One model per process (fresh dynamo and
cudagraph-tree state); one JSON line per point appended to --out as soon as it is measured.

    compiled_gaps.py KEY LAYERS B:CTX[,B:CTX...] --out FILE

Per point (hf_compiled.py's build and StaticCache decode loop, torch.compile reduce-overhead):
- `wall_s`: median of 20 synchronized calls, host clock (what a user waits per step);
- `device_s`: CUDA events around the same calls (the host's work before the replay included: the
  events are recorded before the call);
- `graph_pure_s`, `host_call_s`, `pre_replay_s`: 10 calls with a GPU spin queued first (host_probe.py's
  trick): the replay alone, the host's time for the call, the host's time before CUDAGraph.replay;
- `kernel_s`, `kernels_per_step`: torch.profiler, 2 calls; `trace`: one profiled call's kernels in
  start order, each [name[:70], duration us, gap before it us, grid CTAs, threads per CTA], from the
  profiler's chrome trace (CUPTI reports the kernels inside a graph replay);
- counts of what the host might scale with: parameters, buffers, cache tensors.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import hf_compiled  # noqa: E402
from host_probe import Replays, emit, spin  # noqa: E402

STEPS = 48


def kernel_trace(step, between):
    """(kernel sum s, kernels, trace rows) of one profiled call, from the chrome trace."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        step()
        torch.cuda.synchronize()
    between()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    ev = json.load(open(path))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    os.unlink(path)
    ks = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    rows, prev_end, total = [], None, 0.0
    for e in ks:
        a = e.get("args", {})
        grid, block = a.get("grid", [0, 0, 0]), a.get("block", [0, 0, 0])
        ctas = grid[0] * grid[1] * grid[2] if len(grid) == 3 else 0
        threads = block[0] * block[1] * block[2] if len(block) == 3 else 0
        gap = e["ts"] - prev_end if prev_end is not None else 0.0
        rows.append([e["name"][:70], round(e["dur"], 3), round(gap, 3), ctas, threads])
        prev_end = e["ts"] + e["dur"]
        total += e["dur"]
    return total * 1e-6, len(ks), rows


def measure(m, cfg, fwd, key, layers, b, ctx, rep):
    with torch.no_grad():
        cache, step, between = hf_compiled.decode_loop(m, cfg, fwd, b, ctx, STEPS)
        tc = time.perf_counter()
        out = step()
        ok = bool(torch.isfinite(out.logits.float()).all()) and out.logits.shape[:2] == (b, 1)
        del out
        between()
        for _ in range(2):  # reduce-overhead records its graph on a later call
            step()
            torch.cuda.synchronize()
            between()
        tc = time.perf_counter() - tc
        wall, q1, q3, dev = hf_compiled._time(step, 20, 3, between)
        fill = 3 * wall + 2e-3
        pure, host, pre, nrep = [], [], [], []
        for _ in range(10):
            rep.t.clear()
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            spin(fill)
            t0 = time.perf_counter()
            e0.record()
            step()
            t1 = time.perf_counter()
            e1.record()
            torch.cuda.synchronize()
            host.append(t1 - t0)
            pure.append(e0.elapsed_time(e1) * 1e-3)
            nrep.append(len(rep.t))
            if rep.t:
                pre.append(rep.t[0][0] - t0)
            between()
        kt, kcount, trace = kernel_trace(step, between)
        kt2, kcount2, _ = kernel_trace(step, between)
    med = statistics.median
    gaps = [r[2] for r in trace[1:]]
    rec = dict(model=key, layers=layers, phase="decode", batch=b, ctx=ctx, kv_len=ctx + STEPS, ok=ok,
               impl="torch.compile", mode="reduce-overhead", cache="StaticCache",
               wall_s=wall, wall_q1_s=q1, wall_q3_s=q3, device_s=dev, graph_pure_s=med(pure),
               host_call_s=med(host), pre_replay_s=med(pre) if pre else None,
               replays_per_call=med(nrep), kernel_s=(kt + kt2) / 2, kernels_per_step=(kcount + kcount2) / 2,
               trace_gap_sum_s=sum(gaps) * 1e-6, trace_gap_median_us=med(gaps) if gaps else None,
               params=sum(1 for _ in m.parameters()), buffers=sum(1 for _ in m.buffers()),
               cache_tensors=2 * layers, compile_and_warmup_s=tc, trace=trace)
    del cache
    torch.cuda.empty_cache()
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("key")
    ap.add_argument("layers", type=int)
    ap.add_argument("points")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.cuda.set_device(0)
    torch._dynamo.config.cache_size_limit = 64
    rep = Replays()
    m, cfg = hf_compiled._build(a.key, a.layers)
    fwd = torch.compile(m.forward, mode="reduce-overhead", fullgraph=True, dynamic=False)
    for order, pt in enumerate(a.points.split(",")):
        b, ctx = (int(x) for x in pt.split(":"))
        try:
            rec = measure(m, cfg, fwd, a.key, a.layers, b, ctx, rep)
            rec["order_in_process"] = order
        except Exception as e:  # one failed shape must not lose the others
            rec = dict(model=a.key, layers=a.layers, phase="decode", batch=b, ctx=ctx, ok=False,
                       error=f"{type(e).__name__}: {str(e)[:400]}")
        emit(a.out, rec)


if __name__ == "__main__":
    main()
