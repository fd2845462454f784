#!/usr/bin/env python3
"""chost14's second call (validation/results/h200-chost14/chost14-run2.jsonl): the compiled call's host
time before the replay against the graph's inputs, on one lease, and whether that law carries to the
compiled steps measured on other leases.

    python3 validation/scripts/production/chost14_law.py [perfmodel]

1. Per first shape: the median host time before CUDAGraph.replay (base variant, 15 calls behind a GPU
   spin) and the stages. 2. host = a + b x graph inputs (4 + 12 a layer for the Llama family, 4 + 15 for
   Qwen2.5: chost14_counts.py), fitted on every other point sorted by inputs, against the flat median
   of the same points, on the other half. 3. The law in place of the flat graph_call_host (262.1 us)
   in compare_compiled.py's predicted replays of h200-compiled (held-out steps) and h200-compiled2.
"""
import json
import os
import re
import statistics as st
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUN2 = "validation/results/h200-chost14/chost14-run2.jsonl"
FLAT_US = 262.1  # profiles.compiled.graph_call_host


def inputs(model, layers):
    return 4 + (15 if model.startswith("qwen") else 12) * layers


def abs_stats(e):
    a = sorted(abs(x) for x in e)
    return f"median {100 * st.median(a):.1f} %, max {100 * a[-1]:.1f} %"


def main(binary):
    pts = []
    for line in open(RUN2):
        r = json.loads(line)
        if "base_pre_all" not in r:
            continue
        host = st.median(r["base_pre_all"]) * 1e6
        pts.append((f"{r['model']} L{r['layers']}", inputs(r["model"], r["layers"]), host))
        b = r["base"]
        print(f"{r['model']:15s} L{r['layers']:<3d} inputs {inputs(r['model'], r['layers']):4d}  host {host:6.0f} us  "
              f"(no guards {st.median(r['noguard_pre_all']) * 1e6:5.0f}, gc off {st.median(r['nogc_pre_all']) * 1e6:5.0f})  "
              f"t0->cfn {b['t0->cfn'] * 1e6:5.0f}  mgr->node {b['mgr->node'] * 1e6:4.0f}  node->replay {b['node->replay'] * 1e6:3.0f}")
    pts.sort(key=lambda p: p[1])
    fit, held = pts[0::2], pts[1::2]
    xs, ys = [p[1] for p in fit], [p[2] for p in fit]
    mx, my = st.mean(xs), st.mean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    flat = st.median(ys)
    print(f"\nlaw on this lease: host = {a:.1f} us + {b:.2f} us x inputs (fit: {', '.join(p[0] for p in fit)})")
    print("  held out, law:  " + abs_stats([(a + b * p[1]) / p[2] - 1 for p in held]))
    print(f"  held out, flat {flat:.0f} us: " + abs_stats([flat / p[2] - 1 for p in held]))
    for path, held_only in (("validation/results/h200-compiled/hf.json", True),
                            ("validation/results/h200-compiled2/compiled2.jsonl", False)):
        out = subprocess.run([sys.executable, os.path.join(HERE, "compare_compiled.py"), path, binary],
                             capture_output=True, text=True, check=True).stdout
        old, new = [], []
        for m in re.finditer(r"^\| (\S+) L(\d+) decode \S+ \S+ \(kv \d+\) \| (fit|held out) \| [\d.]+ ms \| ([\d.]+) ms \| "
                             r"[\d.]+ ms \| \d+ \| ([\d.]+) ms", out, re.M):
            if held_only and m.group(3) != "held out":
                continue
            meas, pred = float(m.group(4)), float(m.group(5))
            law = pred + (a + b * inputs(m.group(1), int(m.group(2))) - FLAT_US) / 1e3
            old.append(pred / meas - 1)
            new.append(law / meas - 1)
        print(f"{path}: graph replay, flat {abs_stats(old)}; with the law {abs_stats(new)} ({len(old)} steps)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel")
