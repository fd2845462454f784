#!/usr/bin/env python3
"""This host's pace for the eager profile, for `perfmodel calibrate --on-gpu --profile eager` (issue 10, item 2:
the profile's host time is measured on the machine that runs it, as the card's roofs are).

    python3 validation/scripts/production/profile_host.py --model KEY --layers L1[,L2] [--batch B] [--ctx N] [--out FILE]

Why: the eager step's wall is the host's when the host is the slower side (transformers' Python, PyTorch's
dispatcher and the launches, one after another), and the host's speed differs 1.3-2.7x between machines
(validation/results/h200-host-probe: the same GPT-2 step 5.6 ms on one lease, 15.0 ms on another). A count model
fitted once cannot carry that; a probe on the user's own host can.

What: the catalogue model cut to L1 (and L2) decoder layers (random bf16 weights), one transformers decode step of a
contiguous DynamicCache of N tokens at batch B (hf_decode._decode_setup, as hf_grid.py's steps). The GPU is kept
busy by a spin queued before each timed call (torch.cuda._sleep), so the host never waits for it and the call's
return time is the host's own work (host_probe.py's trick): host_call_s, the median of 30 calls. wall_s and the
profiler's kernel count are recorded beside it, the profiler run after every depth is timed. Two depths separate the
host per decoder layer from the forward's own host around them. A depth's kernels must fit the launch queue (~1000
pending launches, 20 Llama layers or fewer): past it the host waits for the spin and the time is the GPU's. The last
line of stdout is the result perfmodel reads:

    profile_host ok=1 depths=2 host_call_s_L1=... host_call_s_L2=...

--out also writes the record as JSON (what `perfmodel calibrate --profile eager --from-probe FILE` refits from).
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import hf_decode  # noqa: E402

SPIN_CYCLES_PER_S = 1.98e9  # torch.cuda._sleep counts SM clock cycles (the H200's top clock; more on slower cards)


def host_calls(step, between, n, fill_s):
    """Median host time of `step` with the GPU busy for fill_s before it (host_probe.timed's method)."""
    out = []
    for _ in range(n):
        torch.cuda.synchronize()
        torch.cuda._sleep(int(fill_s * SPIN_CYCLES_PER_S))
        t0 = time.perf_counter()
        step()
        out.append(time.perf_counter() - t0)
        torch.cuda.synchronize()
        between()
    return statistics.median(out), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="llama2-7b", help="catalogue key whose transformers class is probed")
    ap.add_argument("--layers", default="4,16",
                    help="the depths, decoder layers kept, one or two comma-separated (two separate the host per layer "
                         "from the forward's own; a depth's kernels must fit the launch queue, ~1000: 20 layers or fewer)")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--ctx", type=int, default=256, help="tokens in the cache before the step")
    ap.add_argument("--out", default="", help="also write the record here (JSON)")
    a = ap.parse_args()
    try:
        depths = [int(x) for x in a.layers.split(",")]
    except ValueError:
        raise SystemExit(f"profile_host: --layers: comma-separated integers, not '{a.layers}'")
    if not 1 <= len(depths) <= 2 or min(depths) < 1 or a.batch < 1 or a.ctx < 1:
        raise SystemExit("profile_host: one or two --layers >= 1, --batch and --ctx >= 1")
    import transformers
    # Every depth's host is timed before any profiler session: a torch.profiler session slows the process's later
    # eager steps (validation/results/h200-hostlease, profiler_drag.py). The kernel counts come last.
    built, recs, ok_all = [], [], True
    with torch.no_grad():
        for layers in depths:
            m, cfg = hf_decode.build_cut(hf_decode.hf_config(a.model), layers)
            step, between, cache, ok = hf_decode._decode_setup(m, cfg, a.batch, a.ctx, contiguous=True)
            wall, _, _ = hf_decode._wall(step, 20, 3, between)
            host, all_calls = host_calls(step, between, 30, 4 * wall + 5e-3)
            built.append((m, step, between, cache))
            recs.append(dict(layers=layers, host_call_s=host, host_calls_s=all_calls, wall_s=wall))
            ok_all = ok_all and ok
        for rec, (_, step, between, _) in zip(recs, built):
            kernel, _, kernels, _ = hf_decode._kernel_profile(step, 3, between)
            rec.update(kernel_s=kernel, kernels=kernels)
    rec = dict(model=a.model, batch=a.batch, ctx=a.ctx, ok=int(ok_all), depths=recs,
               device=torch.cuda.get_device_name(0), torch=torch.__version__, transformers=transformers.__version__,
               date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    if a.out:
        json.dump(rec, open(a.out, "w"), indent=1)
    print(f"profile_host ok={int(ok_all)} depths={len(recs)} " +
          " ".join(f"host_call_s_{r['layers']}={r['host_call_s']:.9g}" for r in recs), flush=True)


if __name__ == "__main__":
    main()
