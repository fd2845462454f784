#!/usr/bin/env python3
"""Branch hostorder (issue 10): what validation/results/h200-hostorder/hostorder.jsonl says about the
compiled call's host before its graph replay, and graph_call_host's level pooled over it.

    python3 validation/scripts/production/hostorder_points.py [BINARY [--split] [--gap US]]

1. Per process (each row: the first step of a fresh process, no profiler had run, GPU idle at each
   call: hf_compiled._time's protocol): the host before CUDAGraph.replay and its stages, the host after
   the replay, their ratio, and the replay from its launch (device events - host before the replay).
2. The two processes that ran the same step 0 (Llama-3-8B L4 b1 ctx512): each stage's ratio.
3. host before the replay / (wall - device), the speed-free reading every hf_compiled-style record
   has: h200-compiled's seven steps, these processes, h200-compiled2's and the check sets' compiled
   steps (h200-heldout19-21 compiled/: read, nothing fitted), with each step's order in its process.
4. With BINARY: graph_call_host's level as hostreplay_refit.py fits it (the median of host / (1 + n /
   n0) over h200-compiled's steps 0, 2, 4, 6) and pooled with these processes' host before the replay
   (measured directly); the law at 52 / 64 inputs either way. --split / --gap as hostreplay_refit.py
   (the opt-in: --split --gap 0.373).
"""
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
R = "validation/results/"
INPUTS = {"llama3-8b": 4 + 12 * 4, "llama2-7b": 4 + 12 * 4, "qwen2.5-7b": 4 + 15 * 4}  # 4 layers
# h200-compiled's steps' host before the replay, derived there (graph replay - kernel sum - gap x launches)
COMPILED_HOST_US = [162, 248, 301, 437, 227, 614, 658]
STAGES = ["t0->inductor", "inductor->mgr", "mgr->node", "node->replay", "replay_call", "post_replay", "pre_replay"]


def points():
    out = []
    for line in open(R + "h200-hostorder/hostorder.jsonl"):
        r = json.loads(line)
        if "A" not in r:
            continue
        r["n"] = INPUTS[r["model"]]
        out.append(r)
    return out


def table(P):
    print("process      step model       b   ctx  inputs compile  host before  after  ratio  replay   "
          "h200-compiled (same step, one process)")
    for r in P:
        A = r["A"]
        print(f"{r['tag']:12s} {r['step']}    {r['model']:11s} {r['batch']:2d} {r['ctx']:5d}  {r['n']:3d}   "
              f"{r['compile_s']:5.1f} s  {A['pre_replay'] * 1e6:6.0f} us  {A['post_replay'] * 1e6:5.0f}  "
              f"{A['pre_replay'] / A['post_replay']:5.2f}  {(A['device'] - A['pre_replay']) * 1e6:6.0f}   "
              f"{COMPILED_HOST_US[r['step']]} us (position {r['step']})")
    print("\nstages (us):", "  ".join(f"{s:>13s}" for s in STAGES))
    for r in P:
        print(f"{r['tag']:12s}", "  ".join(f"{r['A'].get(s, 0) * 1e6:13.1f}" for s in STAGES))
    z = [r for r in P if r["step"] == 0]
    if len(z) == 2:
        slow, fast = sorted(z, key=lambda r: -r["A"]["pre_replay"])
        print(f"\nstep 0 twice ({slow['tag']} / {fast['tag']}): ratio per stage",
              "  ".join(f"{s} {slow['A'][s] / fast['A'][s]:.2f}" for s in STAGES),
              f"; replay from its launch {(slow['A']['device'] - slow['A']['pre_replay']) * 1e6:.0f} / "
              f"{(fast['A']['device'] - fast['A']['pre_replay']) * 1e6:.0f} us")


def outside(P):
    """The host before the replay over the host outside the call's events (wall - device: after the
    replay, the event, the sync's wake-up), a speed-free reading any hf_compiled-style record has."""
    import glob
    print("\nhost before the replay / (wall - device):")
    steps = json.load(open(R + "h200-compiled/hf.json"))["steps"]
    print("  h200-compiled (one process, positions 0-6): " + ", ".join(
        f"{h / ((s['wall_s'] - s['device_s']) * 1e6):.1f} ({h} us)" for h, s in zip(COMPILED_HOST_US, steps)))
    print("  h200-hostorder (fresh processes): " + ", ".join(
        f"{r['A']['pre_replay'] / (r['A']['wall'] - r['A']['device']):.1f} ({r['A']['pre_replay'] * 1e6:.0f} us)" for r in P))
    for f in sorted(glob.glob(R + "h200-compiled2/compiled2*.jsonl") + glob.glob(R + "h200-heldout*/compiled/*.jsonl")):
        rows = [json.loads(x) for x in open(f) if x.strip()]
        rows = [r for r in rows if r.get("pre_replay_s")]
        print(f"  {f[len(R):]} (model, order in its process: ratio, host): " + "; ".join(
            f"{r['model']} L{r['layers']} b{r['batch']} #{r.get('order_in_process', '?')}: "
            f"{r['pre_replay_s'] / (r['wall_s'] - r['device_s']):.1f}, {r['pre_replay_s'] * 1e6:.0f} us" for r in rows))


def level(exe, split, gap_us, P):
    import hostreplay_refit as hr
    import hostreplay_shape
    n0 = hr.shape_n0()
    probe = [r for r in map(json.loads, open(R + "h200-host-probe/probe.jsonl")) if r["mode"] == "compiled"]
    steps = [s for s in json.load(open(R + "h200-compiled/hf.json"))["steps"] if s.get("ok")]
    with tempfile.TemporaryDirectory() as tmp:
        for r in probe + steps:
            d = hr.ops_json(exe, tmp, r)
            r["l"] = d["step"]["launches"] + (sum(o["launches"] for o in d["ops"] if o["kind"] == "gemm"
                                                  and (o.get("split_k") or 1) > 1) if split else 0)
            r["n"] = hostreplay_shape.inputs(r["model"], r["layers"])
    gap = gap_us * 1e-6 if gap_us is not None else \
        sum(r["graph_pure_s"] - r["kernel_s"] for r in probe) / sum(r["l"] for r in probe)
    hosts = [s["device_s"] - s["kernel_s"] - gap * s["l"] for s in steps]
    own = [hosts[i] / (1 + steps[i]["n"] / n0) for i in hr.FIT_STEPS]
    new = [r["A"]["pre_replay"] / (1 + r["n"] / n0) for r in P]
    a0, a1 = statistics.median(own), statistics.median(own + new)
    print(f"\nn0 {n0:.0f}; graph_kernel_gap {gap * 1e6:.3f} us")
    print(f"  h200-compiled steps 0, 2, 4, 6 (level each, us): {', '.join(f'{x * 1e6:.0f}' for x in own)}")
    print(f"  h200-hostorder's {len(new)} processes (level each, us): {', '.join(f'{x * 1e6:.0f}' for x in new)}")
    for name, a in (("steps 0, 2, 4, 6 alone (hostreplay_refit.py)", a0), ("pooled with h200-hostorder", a1)):
        print(f"  {name}: graph_call_host {a * 1e6:.1f} us, graph_call_host_per_input {a / n0 * 1e6:.3f} us; "
              f"law at 52 / 64 inputs {a * (1 + 52 / n0) * 1e6:.0f} / {a * (1 + 64 / n0) * 1e6:.0f} us")
    print("  h200-hostorder against the pooled law (host / law - 1): " +
          ", ".join(f"{r['tag']} {a1 * (1 + r['n'] / n0) / r['A']['pre_replay'] - 1:+.0%}" for r in P))


def main():
    P = points()
    table(P)
    outside(P)
    if len(sys.argv) > 1 and not sys.argv[1].startswith("--"):
        gap = float(sys.argv[sys.argv.index("--gap") + 1]) if "--gap" in sys.argv else None
        level(sys.argv[1], "--split" in sys.argv, gap, P)


if __name__ == "__main__":
    main()
