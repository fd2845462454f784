#!/usr/bin/env python3
"""Fits the fused profile's graph keys and prints what sets the gap between kernels inside a CUDA
graph replay (issue 10).

Usage: python3 validation/scripts/production/fit_graph_gap.py [h200-fused-step results.jsonl] [compiled2.jsonl]
           [perfmodel] [h200-fused-step-alone results.jsonl]

1. The former `graph_kernel_gap` (hardware/h200.calibration.yaml, profiles: fused:, 0.891 us): the median over
   the EVEN decode points of h200-fused-step of (measure()'s graph replay - kernel sum) / predicted
   launches. measure() times the replay with CUDA events on an idle GPU, so the value carries the
   GPU's idle per kernel boundary AND the host's cudaGraphLaunch that the idle GPU waits for.

2. The two apart (the committed values since branch graphhost11), on
   validation/results/h200-fused-step-alone (validation/results/h200-fused-gaps says why):
   - the GPU's idle at each kernel boundary inside the replay (0.39-0.45 us, 0.67-0.93 us before
     cuBLASLt's splitKreduce; h200-compiled2's 2,956 boundaries say the same). perfmodel's launches
     leave out the split-K reduce kernels, so one value per predicted launch carries them:

         graph_kernel_gap = median over the EVEN decode points of
                            (GPU-alone replay - kernel sum) / predicted launches

     The GPU-alone replay (`spin_first_s`) is timed behind a 3 ms GPU spin, so the host's graph
     launch is hidden, as a serving engine hides it by launching the next graph while the GPU runs
     this one.
   - the host's cudaGraphLaunch (`host_launch_s`: perf_counter around graph.replay(), GPU busy),
     which submits each kernel node of the graph. A loop that synchronizes every step (generate(),
     measure()) starts the GPU only after it: measure()'s replay minus the GPU-alone one is the
     launch less ~25 us on the decode points.

         graph_launch_per_node = median over the EVEN points (all phases) of
                                 host_launch_s / predicted launches

     The host data cannot tell this law from a flat time per launch (36 % median error on the odd
     points either way) nor fit a + b x launches (correlation 0.13, printed below): the launch varies
     2x between points of one model and graph size (55-208 us for TinyLlama's 267-289 nodes), with
     the host. Per node is the mechanism (the driver writes every node's launch); it is also the law
     with which the kernel-only gemm block's fused steps keep their guard (docs/accuracy-notes.md,
     "graphhost11").

   Odd decode points and all prefill points are held out of graph_kernel_gap, odd points of
   graph_launch_per_node (printed). Both measured times of each fit are the step's own, not perfmodel's
   kernel prices.

The compiled profile's values stay fitted on h200-host-probe and h200-compiled (fit_compiled.py).
"""
import json
import statistics
import sys
import tempfile

from compare_fused_step import load, predict
from compare_hf import pct


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


def line_fit(x, y):
    """Least squares y = a + b x; and the correlation of x and y."""
    mx, my = statistics.mean(x), statistics.mean(y)
    sxy = sum((u - mx) * (v - my) for u, v in zip(x, y))
    sxx = sum((u - mx) ** 2 for u in x)
    syy = sum((v - my) ** 2 for v in y)
    return my - sxy / sxx * mx, sxy / sxx, sxy / (sxx * syy) ** 0.5


def held_line(name, errs):
    m, q = pct(errs)
    print(f"  # {name}: {len(errs)} held-out points, |error| median {m:.1%}, p90 {q:.1%}, mean {statistics.mean(errs):+.1%}")


def committed_fit(path, binary):
    """1: graph_kernel_gap on measure()'s replays of h200-fused-step (the value before graphhost11)."""
    points = [r for r in load(path) if r.get("kind") == "point" and r.get("ok")]
    with tempfile.TemporaryDirectory() as tmp:
        for p in points:
            p["launches"] = predict(binary, p, tmp)["step"]["launches"]
    dec = [p for p in points if p["phase"] == "decode"]
    per = [(p["device_s"] - p["kernel_s"]) / p["launches"] for p in dec]
    print(f"    graph_kernel_gap: {statistics.median(per[0::2]) * 1e6:.3f} us   # former: measure()'s replays, "
          f"the {len(per[0::2])} even decode points of {path}")


def alone_fit(path, binary):
    """2: graph_kernel_gap on the GPU-alone replays, graph_launch_per_node on the host's launch."""
    points = [r for r in load(path) if r.get("kind") == "point" and r.get("ok")]
    with tempfile.TemporaryDirectory() as tmp:
        for p in points:
            p["launches"] = predict(binary, p, tmp)["step"]["launches"]
    dec = [p for p in points if p["phase"] == "decode"]
    per = [(p["spin_first_s"] - p["kernel_s"]) / p["launches"] for p in dec]
    gap = statistics.median(per[0::2])
    even, odd = points[0::2], points[1::2]
    node = statistics.median(p["host_launch_s"] / p["launches"] for p in even)
    host = statistics.median(p["host_launch_s"] for p in even)  # the flat alternative
    print(f"    graph_kernel_gap: {gap * 1e6:.3f} us   # the {len(per[0::2])} even decode points of {path}")
    print(f"    graph_launch_per_node: {node * 1e6:.3f} us   # its {len(even)} even points")
    for p in points:
        held = p["phase"] == "prefill" or dec.index(p) % 2 == 1
        g = (p["spin_first_s"] - p["kernel_s"]) / p["launches"]
        print(f"  # {'held' if held else 'fit '} {p['model']} {p['phase']} b{p['batch']} ctx{p['ctx']}: "
              f"(GPU-alone replay - kernels) / launches {g * 1e6:6.3f} us ({p['launches']} launches, "
              f"{p['kernels']:.0f} kernels); host launch {p['host_launch_s'] * 1e6:5.1f} us"
              f"{'' if p in even else ' (held out of graph_launch_per_node)'}")
    held_line("GPU-alone replay, odd decode: measured kernels + graph_kernel_gap x launches",
              [(p["kernel_s"] + gap * p["launches"]) / p["spin_first_s"] - 1 for p in dec[1::2]])
    held_line("GPU-alone replay, prefill: measured kernels + graph_kernel_gap x launches",
              [(p["kernel_s"] + gap * p["launches"]) / p["spin_first_s"] - 1 for p in points if p["phase"] == "prefill"])
    # The host's launch: flat against a line in the graph's nodes (predicted launches), both on the even points.
    a, b, r = line_fit([p["launches"] for p in even], [p["host_launch_s"] for p in even])
    print(f"  # host launch = a + b x launches on the even points: a = {a * 1e6:.1f} us, b = {b * 1e6:.3f} us, "
          f"correlation {r:.2f}")
    held_line("host launch, odd points: graph_launch_per_node x launches",
              [node * p["launches"] / p["host_launch_s"] - 1 for p in odd])
    held_line(f"host launch, odd points: flat {host * 1e6:.1f} us (median of the even points)",
              [host / p["host_launch_s"] - 1 for p in odd])
    held_line("host launch, odd points: a + b x launches", [(a + b * p["launches"]) / p["host_launch_s"] - 1 for p in odd])
    held_line("measure() replay - GPU-alone replay, odd decode: graph_launch_per_node x launches",
              [node * p["launches"] / (p["device_s"] - p["spin_first_s"]) - 1 for p in dec[1::2]])


if __name__ == "__main__":
    arg = lambda i, default: sys.argv[i] if len(sys.argv) > i and sys.argv[i] else default  # noqa: E731
    binary = arg(3, "build/tools/perfmodel/perfmodel")
    committed_fit(arg(1, "validation/results/h200-fused-step/results.jsonl"), binary)
    alone_fit(arg(4, "validation/results/h200-fused-step-alone/results.jsonl"), binary)
    trace_mechanism(arg(2, "validation/results/h200-compiled2/compiled2.jsonl"))
