#!/usr/bin/env python3
"""Per-boundary GPU idle inside the fused step's CUDA graph replay (lead, 2026-12-02).

fused_step.py's step for a few decode points; its measure() as committed (graph replay timing,
kernel profile), plus one profiled replay's chrome trace: each kernel [name[:70], duration us, gap
before it us, grid CTAs, threads per CTA] (compiled_gaps.kernel_trace). One JSON line per point.
    fused_gaps.py --out FILE  MODEL:B:CTX [...]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import compiled_gaps  # noqa: E402
import fused_step  # noqa: E402
import harness  # noqa: E402

TRACE = {}
_orig = fused_step.hf_decode._kernel_profile


def _profile_and_trace(fn, n, between=None):
    TRACE["rows"] = compiled_gaps.kernel_trace(fn, lambda: None)[2]
    return _orig(fn, n, between)


fused_step.hf_decode._kernel_profile = _profile_and_trace


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
            r.update(kind="point", trace=TRACE.pop("rows"))
            g = [x[2] for x in r["trace"][1:]]
            print(f"{p}: graph {r['device_s']*1e6:.0f} us kernels {r['kernel_s']*1e6:.0f} us n {r['kernels']:.0f} "
                  f"trace gaps {sum(g):.0f} us ok {r['ok']}", flush=True)
            f.write(json.dumps(r) + "\n")
            f.flush()


if __name__ == "__main__":
    main()
