#!/usr/bin/env python3
"""What (graph replay - profiled span) of the fused step is (lead, 2026-12-02; h200-fused-gaps).

fused_step.py's measure() as committed (layer 0 checked against fp32 first; the replay timed with CUDA
events, synchronize after each); inside its kernel-profile call the same graph is also timed
  back_to_back: 30 replays, events around each, synchronize after each (measure()'s way);
  spin_first:   30 replays each behind a 3 ms GPU spin, so the host's cudaGraphLaunch is hidden and the
                events time the GPU's replay alone (host_probe.py's trick);
  host_launch:  the host's time in graph.replay() (perf_counter around the call, GPU busy spinning);
then the committed profile. One JSON line per point.
    fused_replay_probe.py --out FILE MODEL:B:CTX [...]
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import compiled_gaps  # noqa: E402
import fused_step  # noqa: E402
import harness  # noqa: E402
from host_probe import spin  # noqa: E402

EXTRA = {}
_orig = fused_step.hf_decode._kernel_profile


def _timed(replay, before):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    before()
    h0 = time.perf_counter()
    a.record()
    replay()
    h1 = time.perf_counter()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e-3, h1 - h0


def _probe(fn, n, between=None):
    med = statistics.median
    b2b = [_timed(fn, lambda: None) for _ in range(30)]
    sp = [_timed(fn, lambda: spin(3e-3)) for _ in range(30)]
    rows = compiled_gaps.kernel_trace(fn, lambda: None)[2]
    EXTRA.update(back_to_back_s=med(x[0] for x in b2b), back_to_back_host_s=med(x[1] for x in b2b),
                 spin_first_s=med(x[0] for x in sp), host_launch_s=med(x[1] for x in sp),
                 profiled_span_s=sum(x[1] + x[2] for x in rows) * 1e-6 - rows[0][2] * 1e-6,
                 profiled_kernels_s=sum(x[1] for x in rows) * 1e-6, nodes=len(rows))
    return _orig(fn, n, between)


fused_step.hf_decode._kernel_profile = _probe


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("points", nargs="+")
    a = ap.parse_args()
    harness.init()
    models = {}
    with open(a.out, "a") as f:
        f.write(json.dumps(dict(kind="meta", device=harness.device_meta(), torch=torch.__version__, argv=sys.argv,
                                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))) + "\n")
        for p in a.points:
            key, b, ctx = p.split(":")
            if key not in models:
                models.clear()
                torch.cuda.empty_cache()
                s = fused_step.Spec(key, 0)
                models[key] = (s, fused_step.Weights(s), fused_step.Kernels())
            r = fused_step.measure_point(key, "decode", int(b), int(ctx), model=models[key], check=True)
            r.update(kind="point", **EXTRA)
            r.pop("top_kernels_s", None)
            print(f"{p}: measure() {r['device_s']*1e6:.0f} b2b {r['back_to_back_s']*1e6:.0f} spin-first "
                  f"{r['spin_first_s']*1e6:.0f} span {r['profiled_span_s']*1e6:.0f} kernels "
                  f"{r['profiled_kernels_s']*1e6:.0f} host launch {r['host_launch_s']*1e6:.0f} us "
                  f"(b2b host {r['back_to_back_host_s']*1e6:.0f}) nodes {r['nodes']} ok {r['ok']}", flush=True)
            f.write(json.dumps(r) + "\n")
            f.flush()


if __name__ == "__main__":
    main()
