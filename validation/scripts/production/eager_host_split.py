#!/usr/bin/env python3
"""What the eager profile's host_per_kernel lumps (validation/results/h200-host-probe, section 3).

Usage: python3 validation/scripts/production/eager_host_split.py [probe.jsonl] [h200-production hf.json]

Per decoder layer, from host_probe.py's two depths of each model (the difference of their counts):
kernels, aten ops, views, nn.Module calls, Python calls; the step's own part is the shallower
depth's count minus its layers. Then the host-bound steps of hf.json (wall >= 2 x kernel time, b1
ctx512 of Llama-2-7B and GPT-2) are split into `a` per kernel (their measured kernel count) and `b`
per Python call (counts extrapolated to the full depth): two equations, two unknowns, solved
exactly (no held-out claim: an analysis, not a fit the model uses). Qwen2.5-7B is then priced with
Llama's Python counts (its own eager probe failed) against its host-bound steps.
"""
import json
import statistics
import sys

DEPTH = {"llama2-7b": 32, "qwen2.5-7b": 28, "gpt2": 12}


def per_layer(records, key):
    rs = sorted((r for r in records if r["model"] == key), key=lambda r: r["layers"])
    lo, hi = rs[0], rs[-1]
    d = hi["layers"] - lo["layers"]
    out = {}
    for f in ("kernels_per_step", "aten_ops", "aten_views", "module_calls", "py_calls_per_call"):
        slope = (hi[f] - lo[f]) / d
        out[f] = (lo[f] - lo["layers"] * slope, slope)  # (the step's own, per layer)
    return out


def main(probe, hf):
    eager = [r for r in map(json.loads, open(probe)) if r["mode"] == "eager"]
    counts = {k: per_layer(eager, k) for k in ("llama2-7b", "gpt2")}
    for k, c in counts.items():
        print(f"{k}: per layer " + ", ".join(f"{f} {v[1]:.1f}" for f, v in c.items()) +
              "; the step's own " + ", ".join(f"{f} {v[0]:.0f}" for f, v in c.items()))
    counts["qwen2.5-7b"] = counts["llama2-7b"]
    steps = [s for s in json.load(open(hf))["steps"] if s.get("ok") and s["phase"] == "decode"]
    bound = [s for s in steps if s["wall_s"] >= 2 * s["kernel_s"]]

    def python_calls(key):
        own, layer = counts[key]["py_calls_per_call"]
        return own + DEPTH[key] * layer

    pick = {k: next(s for s in bound if s["model"] == k and s["batch"] == 1 and s["ctx"] == 512)
            for k in ("llama2-7b", "gpt2")}
    (k1, p1, w1), (k2, p2, w2) = ((pick[k]["kernels_per_step"], python_calls(k), pick[k]["wall_s"]) for k in pick)
    b = (w1 * k2 - w2 * k1) / (p1 * k2 - p2 * k1)
    a = (w1 - b * p1) / k1
    print(f"host-bound b1 ctx512 steps: {a * 1e6:.1f} us per kernel + {b * 1e6:.2f} us per Python call")
    for s in bound:
        pred = a * s["kernels_per_step"] + b * python_calls(s["model"])
        print(f"  {s['model']} b{s['batch']} ctx{s['ctx']}: wall {s['wall_s'] * 1e3:.2f} ms, split {pred * 1e3:.2f} ms "
              f"({pred / s['wall_s'] - 1:+.1%}), {s['wall_s'] / s['kernels_per_step'] * 1e6:.1f} us per kernel")
    q = [s["wall_s"] for s in bound if s["model"] == "qwen2.5-7b"]
    print(f"qwen2.5-7b host-bound walls: {min(q) * 1e3:.1f}-{max(q) * 1e3:.1f} ms, median {statistics.median(q) * 1e3:.2f} ms")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-host-probe/probe.jsonl",
         sys.argv[2] if len(sys.argv) > 2 else "validation/results/h200-production/hf.json")
