#!/usr/bin/env python3
"""Fits the two serial terms of the fused profile's MoE routing kernels (branch idle8) and prints
them against h200-moe-fused2's per-kernel times, fit and held out.

Usage: python3 validation/scripts/moe/fit_moe_routing.py [perfmodel binary] [results dir] [calibration]

- top-k (lib/src/kernels/moe_topk.cpp, kTopkRoundCycles): k dependent rounds of one warp's arg-max
  (two 5-step butterfly shuffles: the best score, then its lowest index), cycles a round at the SM
  clock = median over the fit layers of (measured _topk_softmax_kernel - the stream price) / k. Since
  branch moe11 the price also holds a decode program's per-element instructions (the lone warp's
  local work, moe_topk.cpp; not fitted here): the stream price's part is the binary's price less
  k x the committed round, so the refit takes that work off with the rest.
- align (lib/src/kernels/moe_permute.cpp, kPlanCyclesPerExpert): the plan is one CTA; beyond the
  stream price, its count and owners' loops (branch moe8: 4.7 instructions a compare, the PTX's
  count; an L2 round trip a count iteration), the scatter's atomics, and a cost per expert of the
  padded row once a launch = median over the fit layers of (measured _align_plan_kernel +
  _align_scatter_kernel - the rest of the price) / padded experts. The rest of the price is the
  binary's less the committed per-expert term, so the loops' form does not enter the fit.
Fit layers: fit_fused_moe.py's is_fit_point, decode only (T = 1, 8, 64 of the three models: 9); the
other 15 layers are held out. The binary's price already holds the committed terms: the script
takes them off with the committed constants, refits, and prints both. The profiler's kernel
durations hold no idle, so the kernels are priced alone: with a calibration whose fused profile has
`harness_idle` (hardware/h200.calibration.yaml since branch idle8; without the key every floor holds
the 0.46 us idle after it, 0.46 us a launch over these durations).
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_fused import moe_ops, run_json  # noqa: E402
from fit_fused_moe import is_fit_point  # noqa: E402

CLOCK = 1.98e9                       # hardware/h200.yaml clocks.cuda_core
TOPK_ROUND, PLAN_PER_EXPERT = 213, 116  # committed (cycles)


def kernel_s(c, prefix):
    return sum(k["device_s"] for k in c["kernel_device_s"] if k["name"].startswith(prefix))


def main(binary, folder, calibration):
    rows = []
    for c in json.load(open(os.path.join(folder, "hf.json")))["moe_cases"]:
        if not c["ok"]:
            continue
        ep = 1 << (c["experts"] - 1).bit_length()
        walk = 0.0  # the loops and the scatter: left in the binary's price (see above)
        args = (["decode", "--batch", str(c["tokens"]), "--ctx", "512"] if c["phase"] == "decode"
                else ["prefill", "--batch", "1", "--ctx", str(c["tokens"])])
        ops = moe_ops(run_json(binary, *args, "--model", c["model"], "--impl", "fused", "--calibration", calibration))
        topk = next(t for n, (_, t) in ops.items() if n.endswith(".topk"))
        align = next(t for n, (_, t) in ops.items() if n.endswith(".align"))
        rows.append(dict(c=c, ep=ep, k=c["top_k"], walk=walk, fit=is_fit_point(c) and c["phase"] == "decode",
                         topk=topk, align=align, m_topk=kernel_s(c, "_topk_softmax"),
                         m_align=kernel_s(c, "_align_plan") + kernel_s(c, "_align_scatter"),
                         base_topk=topk - c["top_k"] * TOPK_ROUND / CLOCK,
                         base_align=align - ep * PLAN_PER_EXPERT / CLOCK - walk))
    fit = [r for r in rows if r["fit"]]
    rnd = statistics.median((r["m_topk"] - r["base_topk"]) / r["k"] for r in fit) * CLOCK
    per = statistics.median((r["m_align"] - r["base_align"] - r["walk"]) / r["ep"] for r in fit) * CLOCK
    print(f"# {len(fit)} fit layers: top-k round {rnd:.0f} cycles (committed {TOPK_ROUND}), "
          f"align plan per expert {per:.0f} cycles (committed {PLAN_PER_EXPERT})")
    print("| model | phase | T | set | top-k us | priced | err | align (plan + scatter) us | priced | err |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        c = r["c"]
        print(f"| {c['model']} | {c['phase']} | {c['tokens']} | {'fit' if r['fit'] else 'held out'} | "
              f"{r['m_topk'] * 1e6:.2f} | {r['topk'] * 1e6:.2f} | {r['topk'] / r['m_topk'] - 1:+.1%} | "
              f"{r['m_align'] * 1e6:.2f} | {r['align'] * 1e6:.2f} | {r['align'] / r['m_align'] - 1:+.1%} |")


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", "..", ".."))
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build/tools/perfmodel/perfmodel"),
         sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "validation/results/h200-moe-fused2"),
         sys.argv[3] if len(sys.argv) > 3 else os.path.join(root, "hardware/h200.calibration.yaml"))
