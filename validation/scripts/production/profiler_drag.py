#!/usr/bin/env python3
"""Does a torch.profiler session slow the host's later eager steps in the same process? (h200-hostlease: in each
model's process the first point, timed before any profiler session, ran 1.2-2.3x faster per kernel than the later
points, each timed after the previous point's kernel profile.)

    python3 validation/scripts/production/profiler_drag.py --model KEY --batch B --ctx N --sessions K --out FILE

One process, one decode step (hf_decode._decode_setup, contiguous cache). Before any profiler session and after each
of K sessions (hf_decode._kernel_profile(step, 1): the harness's own kernel profile), it records:
- op_host_s: the host time of one tiny ATen call (x.add_(1) on a 1024-element CUDA tensor, 2000 calls, the GPU
  kept busy by a spin so the host never waits);
- step_host_s: the step's host time, GPU kept busy (profile_host.host_calls, median of 15);
- step_wall_s: the step's synchronized wall (hf_decode._wall, median of 10).
Then the same after gc.collect(). Appends one JSON record per stage to --out.
"""
import argparse
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import hf_decode  # noqa: E402
import profile_host  # noqa: E402


def op_host(n=2000):
    x = torch.zeros(1024, device="cuda")
    torch.cuda.synchronize()
    torch.cuda._sleep(int(0.05 * profile_host.SPIN_CYCLES_PER_S))
    t0 = time.perf_counter()
    for _ in range(n):
        x.add_(1)
    t = (time.perf_counter() - t0) / n
    torch.cuda.synchronize()
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="llama3-8b")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--ctx", type=int, default=1500)
    ap.add_argument("--sessions", type=int, default=4)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    m, cfg = hf_decode.build(a.model)

    def emit(stage, **kw):
        rec = dict(model=a.model, batch=a.batch, ctx=a.ctx, stage=stage, **kw)
        open(a.out, "a").write(json.dumps(rec) + "\n")
        print(json.dumps({k: (round(v * 1e6, 2) if isinstance(v, float) else v) for k, v in rec.items()}), flush=True)

    with torch.no_grad():
        step, between, cache, ok = hf_decode._decode_setup(m, cfg, a.batch, a.ctx, contiguous=True)

        def measure(stage):
            wall, _, _ = hf_decode._wall(step, 10, 2, between)
            host, _ = profile_host.host_calls(step, between, 15, 4 * wall + 5e-3)
            emit(stage, op_host_s=op_host(), step_host_s=host, step_wall_s=wall,
                 profiler_enabled=bool(torch.autograd._profiler_enabled()))
        measure("before any profiler")
        for k in range(1, a.sessions + 1):
            hf_decode._kernel_profile(step, 1, between)
            measure(f"after {k} profiler sessions")
        gc.collect()
        measure("after gc.collect()")


if __name__ == "__main__":
    main()
