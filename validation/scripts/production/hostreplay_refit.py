#!/usr/bin/env python3
"""Branch hostreplay: graph_call_host and graph_call_host_per_input (profiles.compiled), fitted as
fit_compiled.py fits graph_call_host, with the host's shape over the graph's inputs taken from
hostreplay_shape.py.

    python3 validation/scripts/production/hostreplay_refit.py BINARY [--split] [--gap US]

1. n0 (hostreplay_shape.py): host before the replay / host after it = alpha + beta x inputs on the
   fit halves' first shapes (h200-chost14 run2's even points, h200-host-probe's first shapes); the
   ratio takes out the process's and the lease's speed (the after-replay work has no per-input part).
   host(n) = a x (1 + n / n0), n0 = alpha / beta.
2. a: the median over h200-compiled's fit steps 0, 2, 4, 6 (graph_call_host's fit) of
   (graph replay - kernel sum - graph_kernel_gap x predicted launches) / (1 + inputs / n0); inputs
   from the binary (`perfmodel ops --format json`: the graph_inputs.copy op's graph_inputs).
   --gap: graph_kernel_gap in us (default: the probe's fit, sum(replay alone - kernels) / sum(launches)
   over h200-host-probe's 4 compiled points, as fit_compiled.py); --split: each split-K GEMM's reduce
   counted as a launch (compfuse.patch's rule; run with the patch and its calibration).
3. graph_call_host_per_input = a / n0.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare_compiled import cut_model  # noqa: E402
import hostreplay_shape  # noqa: E402

R = "validation/results/"
FIT_STEPS = (0, 2, 4, 6)


def ops_json(exe, folder, s):
    out = subprocess.run([exe, "ops", "--model", cut_model(s["model"], s["layers"], folder), "--card", "h200",
                          "--batch", str(s["batch"]), "--ctx", str(s["kv_len"]), "--phase", "decode", "--impl", "compiled",
                          "--format", "json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def shape_n0():
    P = hostreplay_shape.pts()
    run2 = sorted([p for p in P if p["set"] == "chost14-run2"], key=lambda p: p["n"])
    fit = [p for i, p in enumerate(run2) if i % 2 == 0] + [p for p in P if p["set"] == "host-probe" and p["order"] == 0]
    xs, ys = [p["n"] for p in fit], [p["pre"] / p["post"] for p in fit]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    beta = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return (my - beta * mx) / beta


def main():
    exe = sys.argv[1]
    split = "--split" in sys.argv
    gap_arg = float(sys.argv[sys.argv.index("--gap") + 1]) * 1e-6 if "--gap" in sys.argv else None
    n0 = shape_n0()
    probe = [r for r in map(json.loads, open(R + "h200-host-probe/probe.jsonl")) if r["mode"] == "compiled"]
    steps = [s for s in json.load(open(R + "h200-compiled/hf.json"))["steps"] if s.get("ok")]
    with tempfile.TemporaryDirectory() as tmp:
        for r in probe + steps:
            d = ops_json(exe, tmp, r)
            r["l"] = d["step"]["launches"] + (sum(o["launches"] for o in d["ops"] if o["kind"] == "gemm"
                                                  and (o.get("split_k") or 1) > 1) if split else 0)
            r["n"] = hostreplay_shape.inputs(r["model"], r["layers"])
    gap = gap_arg if gap_arg is not None else \
        sum(r["graph_pure_s"] - r["kernel_s"] for r in probe) / sum(r["l"] for r in probe)
    hosts = [s["device_s"] - s["kernel_s"] - gap * s["l"] for s in steps]
    a = statistics.median(hosts[i] / (1 + steps[i]["n"] / n0) for i in FIT_STEPS)
    flat = statistics.median(hosts[i] for i in FIT_STEPS)
    print(f"n0 {n0:.0f} inputs (hostreplay_shape.py); graph_kernel_gap {gap * 1e6:.3f} us"
          f"{' (given)' if gap_arg is not None else ' (h200-host-probe)'}; flat graph_call_host would be {flat * 1e6:.1f} us")
    print(f"    graph_call_host: {a * 1e6:.1f} us")
    print(f"    graph_call_host_per_input: {a / n0 * 1e6:.3f} us")
    for i, (s, h) in enumerate(zip(steps, hosts)):
        print(f"  # step {i} {'fit ' if i in FIT_STEPS else 'held'} {s['model']} L{s['layers']} b{s['batch']}: inputs {s['n']}, "
              f"host {h * 1e6:6.1f} us, law {a * (1 + s['n'] / n0) * 1e6:6.1f} us")


if __name__ == "__main__":
    main()
