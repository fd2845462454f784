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
5. Branch hostorder2 (validation/results/h200-hostorder2/hostorder.jsonl, the committed probe's five
   processes): the effects of the profiler (within a step: A_after / A; across steps: fwd_prof /
   fwd_noprof at the same step and position), of the order (rev_noprof / fwd_noprof) and of the graphs
   recorded (same012_prof), each as a ratio of the host and of the speed-free reading.
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


def load2(path=R + "h200-hostorder2/hostorder.jsonl"):
    """Branch hostorder2's call (the committed probe, five processes): every record, by tag."""
    by = {}
    if not os.path.exists(path):
        return by
    for line in open(path):
        if line.strip():
            r = json.loads(line)
            by.setdefault(r["tag"], []).append(r)
    return by


def speed_free(A):
    """host before the replay / host outside the events (hostorder's process-speed-free reading)."""
    return A["pre_replay"] / (A["wall"] - A["device"])


def gmean(v):
    import math
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def slope(xs, ys):
    """least squares y = a + b x (ys already logs): (a, b)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    return my - b * mx, b


def effects(by):
    """The order, the profiler and the graphs recorded apart (branch hostorder2). Each effect as a
    ratio of the host before the replay, and of the speed-free reading (before / outside), so a
    process's speed (hostorder: 2x between fresh processes, every stage together) is taken out."""
    import math
    us = 1e6
    print("\n== h200-hostorder2: per process and step (host before the replay, us; before / outside) ==")
    for tag, rows in by.items():
        for r in rows:
            parts = []
            for k in ("A", "A_after", "A_extra", "A_again", "A_after_prof"):
                if k in r:
                    parts.append(f"{k} {r[k]['pre_replay'] * us:5.0f} ({speed_free(r[k]):4.1f}, after {r[k]['post_replay'] * us:4.0f})")
            sb = r.get("state_before", {})
            print(f"  {tag:12s} step {r['step']} pos {r['position']} sessions before {sb.get('profiler_sessions', '?')}: "
                  + "; ".join(parts) + (f"  ERROR {r['error'][:80]}" if "error" in r else ""))
    ok = lambda rows: {r["step"]: r for r in rows if "A" in r and not r.get("again") and r.get("mode") != "same_model"}
    fp, fn, rn = ok(by.get("fwd_prof", [])), ok(by.get("fwd_noprof", [])), ok(by.get("rev_noprof", []))
    out = {}
    # 1. the profiler within a step: A_after (3 sessions later, same step, same process) / A
    w = [(r["A_after"]["pre_replay"] / r["A"]["pre_replay"], speed_free(r["A_after"]) / speed_free(r["A"]))
         for rows in by.values() for r in rows if "A_after" in r and "A" in r]
    if w:
        out["within"] = (gmean([a for a, _ in w]), gmean([b for _, b in w]))
        print(f"\n1. one profiler session set (3) within a step, A_after / A: host {', '.join(f'{a:.2f}' for a, _ in w)} "
              f"(geomean {out['within'][0]:.3f}); before/outside {', '.join(f'{b:.2f}' for _, b in w)} (geomean {out['within'][1]:.3f})")
    # 2. the profiler across steps: fwd_prof's step at position p (3p sessions before it) / fwd_noprof's
    common = sorted(set(fp) & set(fn))
    if common:
        xs = [fp[i]["state_before"]["profiler_sessions"] for i in common]
        ys = [math.log(fp[i]["A"]["pre_replay"] / fn[i]["A"]["pre_replay"]) for i in common]
        zs = [math.log(speed_free(fp[i]["A"]) / speed_free(fn[i]["A"])) for i in common]
        a, b = slope(xs, ys)
        a2, b2 = slope(xs, zs)
        out["across"] = (a, b, a2, b2)
        print("2. fwd_prof / fwd_noprof at the same step and position (sessions before: ratio host, ratio before/outside): "
              + ", ".join(f"s{i} [{x}]: {math.exp(y):.2f}, {math.exp(z):.2f}" for i, x, y, z in zip(common, xs, ys, zs)))
        print(f"   log-linear over sessions: process speed {math.exp(a):.2f}, per session x{math.exp(b):.4f} "
              f"(x{math.exp(3 * b):.3f} per step's 3); speed-free: {math.exp(a2):.2f}, per session x{math.exp(b2):.4f}")
    # 3. the order: rev_noprof / fwd_noprof, the same step at positions 6 - p and p
    common = sorted(set(rn) & set(fn))
    if common:
        xs = [rn[i]["position"] - fn[i]["position"] for i in common]
        ys = [math.log(rn[i]["A"]["pre_replay"] / fn[i]["A"]["pre_replay"]) for i in common]
        zs = [math.log(speed_free(rn[i]["A"]) / speed_free(fn[i]["A"])) for i in common]
        a, b = slope(xs, ys)
        a2, b2 = slope(xs, zs)
        out["order"] = (a, b, a2, b2)
        print("3. rev_noprof / fwd_noprof, the same step (position difference: ratio host, ratio before/outside): "
              + ", ".join(f"s{i} [{x:+d}]: {math.exp(y):.2f}, {math.exp(z):.2f}" for i, x, y, z in zip(common, xs, ys, zs)))
        print(f"   log-linear over the position difference: process speed {math.exp(a):.2f}, per position x{math.exp(b):.4f}; "
              f"speed-free: {math.exp(a2):.2f}, per position x{math.exp(b2):.4f}")
    # 4. the positions within each process (host / the process's first step, same step elsewhere)
    for tag, d in (("fwd_prof", fp), ("fwd_noprof", fn), ("rev_noprof", rn)):
        if d:
            print(f"4. {tag}: host by position " + ", ".join(
                f"{r['position']}:s{i} {r['A']['pre_replay'] * us:.0f}" for i, r in sorted(d.items(), key=lambda kv: kv[1]["position"])))
    # 5. graphs recorded (same012_prof) and fresh3_prof's extra sessions
    for r in by.get("same012_prof", []):
        if r.get("again") and "A_again" in r:
            first = [x for x in by["same012_prof"] if x.get("position") == 0 and "A" in x]
            if first:
                f0 = first[0]["A"]
                out["graphs"] = r["A_again"]["pre_replay"] / f0["pre_replay"]
                print(f"5. same012_prof: step 0 with {r['graphs']} graphs / with 1: host {out['graphs']:.2f}, "
                      f"before/outside {speed_free(r['A_again']) / speed_free(f0):.2f}")
            if "A_after_prof" in r:
                out["graphs_prof"] = r["A_after_prof"]["pre_replay"] / r["A_again"]["pre_replay"]
                print(f"   then after 3 sessions / before: host {out['graphs_prof']:.2f}, before/outside "
                      f"{speed_free(r['A_after_prof']) / speed_free(r['A_again']):.2f}")
    for r in by.get("fresh3_prof", []):
        if "A_extra" in r:
            out["extra"] = (r["A_after"]["pre_replay"] / r["A"]["pre_replay"], r["A_extra"]["pre_replay"] / r["A"]["pre_replay"])
            print(f"6. fresh3_prof step 3: after 3 sessions x{out['extra'][0]:.2f}, after {3 + r['extra_sessions']} x{out['extra'][1]:.2f} "
                  f"(before/outside {speed_free(r['A']):.1f} -> {speed_free(r['A_after']):.1f} -> {speed_free(r['A_extra']):.1f})")
    return out


def main():
    P = points()
    table(P)
    outside(P)
    by = load2()
    if by:
        effects(by)
    if len(sys.argv) > 1 and not sys.argv[1].startswith("--"):
        gap = float(sys.argv[sys.argv.index("--gap") + 1]) if "--gap" in sys.argv else None
        level(sys.argv[1], "--split" in sys.argv, gap, P)


if __name__ == "__main__":
    main()
