#!/usr/bin/env python3
"""Compiled decode steps at new depths and shapes, with the time outside the kernels taken apart
(issue 10, task graph: validation/results/h200-compiled2). One model per process (fresh dynamo and
cudagraph-tree state); one JSON line per point appended to --out as soon as it is measured.

    compiled_gaps.py KEY LAYERS B:CTX[,B:CTX...] --out FILE [--walls-first]

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


def prepare(m, cfg, fwd, b, ctx):
    """A point's decode loop compiled and its CUDA graph recorded: dict(cache, step, between, ok, tc)."""
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
    return dict(cache=cache, step=step, between=between, ok=ok, tc=time.perf_counter() - tc)


def time_point(pt, rep):
    """The point's wall, unfilled replay and GPU-alone replay (no profiler involved)."""
    step, between = pt["step"], pt["between"]
    with torch.no_grad():
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
    med = statistics.median
    return dict(wall_s=wall, wall_q1_s=q1, wall_q3_s=q3, device_s=dev, graph_pure_s=med(pure), host_call_s=med(host),
                pre_replay_s=med(pre) if pre else None, replays_per_call=med(nrep))


def profile_point(pt):
    """The point's kernels: two profiled calls (a torch.profiler session slows the process's later host work:
    validation/results/h200-hostlease's profiler drag; --walls-first keeps it after every point's timing)."""
    with torch.no_grad():
        kt, kcount, trace = kernel_trace(pt["step"], pt["between"])
        kt2, kcount2, _ = kernel_trace(pt["step"], pt["between"])
    gaps = [r[2] for r in trace[1:]]
    return dict(kernel_s=(kt + kt2) / 2, kernels_per_step=(kcount + kcount2) / 2, trace_gap_sum_s=sum(gaps) * 1e-6,
                trace_gap_median_us=statistics.median(gaps) if gaps else None, trace=trace)


def record(m, key, layers, b, ctx, pt, timed, profiled, walls_first):
    return dict(model=key, layers=layers, phase="decode", batch=b, ctx=ctx, kv_len=ctx + STEPS, ok=pt["ok"],
                impl="torch.compile", mode="reduce-overhead", cache="StaticCache", **timed, **profiled,
                params=sum(1 for _ in m.parameters()), buffers=sum(1 for _ in m.buffers()),
                cache_tensors=2 * layers, compile_and_warmup_s=pt["tc"], walls_first=walls_first)


def failed(key, layers, b, ctx, e):
    return dict(model=key, layers=layers, phase="decode", batch=b, ctx=ctx, ok=False, error=f"{type(e).__name__}: {str(e)[:400]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("key")
    ap.add_argument("layers", type=int)
    ap.add_argument("points")
    ap.add_argument("--out", required=True)
    ap.add_argument("--walls-first", action="store_true",
                    help="time every point before profiling any (no profiler session precedes a timed point)")
    a = ap.parse_args()
    torch.cuda.set_device(0)
    torch._dynamo.config.cache_size_limit = 64
    rep = Replays()
    m, cfg = hf_compiled._build(a.key, a.layers)
    fwd = torch.compile(m.forward, mode="reduce-overhead", fullgraph=True, dynamic=False)
    points = [tuple(int(x) for x in pt.split(":")) for pt in a.points.split(",")]
    if not a.walls_first:  # each point timed, then profiled, before the next (every committed set before h200-compgraph)
        for order, (b, ctx) in enumerate(points):
            try:
                pt = prepare(m, cfg, fwd, b, ctx)
                rec = record(m, a.key, a.layers, b, ctx, pt, time_point(pt, rep), profile_point(pt), False)
                rec["order_in_process"] = order
                del pt
                torch.cuda.empty_cache()
            except Exception as e:  # one failed shape must not lose the others
                rec = failed(a.key, a.layers, b, ctx, e)
            emit(a.out, rec)
        return
    prepared, timed = {}, {}
    for order, (b, ctx) in enumerate(points):
        try:
            prepared[order] = prepare(m, cfg, fwd, b, ctx)
            timed[order] = time_point(prepared[order], rep)
        except Exception as e:
            emit(a.out, failed(a.key, a.layers, b, ctx, e))
    for order, (b, ctx) in enumerate(points):
        if order not in timed:
            continue
        try:
            rec = record(m, a.key, a.layers, b, ctx, prepared[order], timed[order], profile_point(prepared[order]), True)
            rec["order_in_process"] = order
        except Exception as e:
            rec = failed(a.key, a.layers, b, ctx, e)
        emit(a.out, rec)


if __name__ == "__main__":
    main()
