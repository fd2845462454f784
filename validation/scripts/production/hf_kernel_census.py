#!/usr/bin/env python3
"""One transformers eager decode step's census: every CUDA kernel and every aten op it runs, by name and count
(torch.profiler), for a catalogue model at (batch, ctx), cache contiguous as hf_grid.py leaves it. Why: a step's
launch count sets its host time; where perfmodel's eager lowering prices fewer launches than a model runs, this
says which ops it misses (validation/results/h200-hfgemma: Gemma-2-9B 2968 kernels a step against 2374 priced).

    python3 validation/scripts/production/hf_kernel_census.py OUT.json KEY[:BATCH:CTX] ...
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import harness  # noqa: E402
import hf_decode  # noqa: E402


def census(key, b, ctx):
    m, cfg = hf_decode.build(key)
    with torch.no_grad():
        step, between, cache, ok = hf_decode._decode_setup(m, cfg, b, ctx, contiguous=True)
        step()
        torch.cuda.synchronize()
        between()
        with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
            step()
            torch.cuda.synchronize()
    kernels, ops = {}, {}
    for e in prof.events():
        table = kernels if e.device_type == torch.autograd.DeviceType.CUDA else ops
        name = e.name[:200]
        table[name] = table.get(name, 0) + 1
    del m, step, between, cache
    torch.cuda.empty_cache()
    return dict(model=key, batch=b, ctx=ctx, ok=ok, kernels=sum(kernels.values()),
                kernel_counts=dict(sorted(kernels.items(), key=lambda kv: -kv[1])),
                op_counts=dict(sorted(((k, v) for k, v in ops.items() if k.startswith("aten::")), key=lambda kv: -kv[1])))


def main(out, specs):
    harness.init()
    found = []
    for spec in specs:
        key, b, ctx = (spec.split(":") + ["1", "1000"])[:3]
        found.append(census(key, int(b), int(ctx)))
        print(key, b, ctx, found[-1]["kernels"], "kernels", flush=True)
        json.dump(found, open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
