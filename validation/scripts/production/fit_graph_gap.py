#!/usr/bin/env python3
"""Fits the fused profile's `graph_kernel_gap` (hardware/h200.calibration.yaml, profiles: fused:) and
prints what sets the gap between kernels inside a CUDA graph replay (issue 10, task graph).

Usage: python3 validation/scripts/production/fit_graph_gap.py [fused results.jsonl] [compiled2.jsonl] [perfmodel]

The mechanism (validation/results/h200-compiled2, per-kernel gaps from the profiler's trace of one
replay: 2,500 kernel boundaries in 7 compiled steps): inside a graph every kernel waits for the
previous one to drain, then the GPU's launch of the next node takes a near-constant 0.3-0.45 us
whatever either kernel's grid (1 to 1,000+ CTAs); a kernel that reads what the whole previous grid
wrote (cuBLASLt's splitKreduce after a split-K GEMM) waits 0.8-0.9 us. So the gap scales with the
kernel count, not the grid. perfmodel's launches leave out the split-K reduce kernels and count
Inductor's three rotary kernels as two, so the value per predicted launch carries those too, and is
fitted per profile on that profile's own graphs:

    graph_kernel_gap = median over the EVEN decode points of h200-fused-step of
                       (graph replay - kernel sum) / predicted launches

(one value; both measured times are the step's own, not perfmodel's kernel prices). The odd decode
points and all 12 prefill points are held out (printed). The compiled profile's value stays fitted on
h200-host-probe (fit_compiled.py).
"""
import json
import statistics
import sys
import tempfile

from compare_fused_step import load, predict


def trace_mechanism(path):
    """Per-boundary gaps of compiled_gaps.py's traces, by what the next kernel is."""
    plain, reduce_ = [], []
    for line in open(path):
        r = json.loads(line)
        if not r.get("ok"):
            continue
        t = r["trace"]
        first = max((i for i, x in enumerate(t) if x[2] > 20), default=0)  # the host's wait before the graph
        for x in t[first + 1:]:
            (reduce_ if "splitKreduce" in x[0] else plain).append(x[2])
        print(f"  # {r['model']} L{r['layers']} b{r['batch']} ctx{r['ctx']}: host before the graph's first kernel "
              f"{t[first][2] if first else 0:.0f} us; in-graph gaps {sum(x[2] for x in t[first + 1:]):.0f} us over "
              f"{len(t) - first - 1} boundaries (profiled); unprofiled replay - kernel sum "
              f"{(r['graph_pure_s'] - r['kernel_s']) * 1e6:.0f} us")
    for label, g in (("before any other kernel", plain), ("before splitKreduce", reduce_)):
        g.sort()
        print(f"  # gap {label}: {len(g)} boundaries, median {statistics.median(g):.3f} us, "
              f"p10 {g[len(g) // 10]:.3f}, p90 {g[9 * len(g) // 10]:.3f}")


def main(path, trace_path, binary):
    points = [r for r in load(path) if r.get("kind") == "point" and r.get("ok")]
    with tempfile.TemporaryDirectory() as tmp:
        for p in points:
            p["launches"] = predict(binary, p, tmp)["step"]["launches"]
    dec = [p for p in points if p["phase"] == "decode"]
    per = [(p["device_s"] - p["kernel_s"]) / p["launches"] for p in dec]
    gap = statistics.median(per[0::2])
    print(f"    graph_kernel_gap: {gap * 1e6:.3f} us   # fused: fitted on the {len(per[0::2])} even decode points")
    for i, p in enumerate(points):
        held = p["phase"] == "prefill" or dec.index(p) % 2 == 1
        g = (p["device_s"] - p["kernel_s"]) / p["launches"]
        print(f"  # {'held' if held else 'fit '} {p['model']} {p['phase']} b{p['batch']} ctx{p['ctx']}: "
              f"(graph - kernels) / launches {g * 1e6:6.3f} us ({p['launches']} launches, {p['kernels']:.0f} kernels)")
    if trace_path:
        trace_mechanism(trace_path)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-fused-step/results.jsonl",
         sys.argv[2] if len(sys.argv) > 2 else "validation/results/h200-compiled2/compiled2.jsonl",
         sys.argv[3] if len(sys.argv) > 3 else "build/tools/perfmodel/perfmodel")
