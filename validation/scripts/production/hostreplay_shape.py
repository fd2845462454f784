#!/usr/bin/env python3
"""Branch hostreplay: the host before a compiled call's replay, divided by the same call's host after
the replay (post_replay: CUDAGraph.replay's return to the call's return, the cudagraph tree's output
bookkeeping, one output; no per-input work), against the graph's inputs.

    python3 validation/scripts/production/hostreplay_shape.py

The post-replay time is the process's own speed gauge: it moves 43-146 us between first shapes for
one output, as the pre-replay time does, and a second shape in the process slows both. The ratio
pre / post = alpha + beta x inputs takes that speed out. alpha, beta: least squares on the fit halves'
first shapes (chost14-run2's even points by inputs, h200-host-probe's first shapes); held out:
run2's odd points and h200-compiled2's first shapes (pre = post x (alpha + beta x inputs), each
point's own post). The shape n0 = alpha / beta is what the calibration takes: host = graph_call_host
x (1 + inputs / n0) / (1 + n_fit / n0), the level from h200-compiled's fit steps.
"""
import json
import statistics as st

R = "validation/results/"


def inputs(model, layers):
    return 4 + (15 if model.startswith("qwen") else 12) * layers


def pts():
    out = []
    for l in open(R + "h200-chost14/chost14-run2.jsonl"):
        r = json.loads(l)
        if "base_pre_all" not in r:
            continue
        out.append(dict(set="chost14-run2", key=f"{r['model']} L{r['layers']}", n=inputs(r["model"], r["layers"]), order=0,
                        pre=st.median(r["base_pre_all"]) * 1e6, post=r["base"]["post_replay"] * 1e6))
    for l in open(R + "h200-compiled2/compiled2.jsonl"):
        r = json.loads(l)
        out.append(dict(set="compiled2", key=f"{r['model']} L{r['layers']} b{r['batch']}", n=inputs(r["model"], r["layers"]),
                        order=r["order_in_process"], pre=r["pre_replay_s"] * 1e6,
                        post=(r["host_call_s"] - r["pre_replay_s"]) * 1e6))
    for l in open(R + "h200-host-probe/probe.jsonl"):
        r = json.loads(l)
        if r.get("mode") != "compiled":
            continue
        out.append(dict(set="host-probe", key=f"{r['model']} L{r['layers']} b{r['batch']}", n=inputs(r["model"], r["layers"]),
                        order=r["order_in_process"], pre=r["pre_replay_s"] * 1e6, post=r["post_replay_s"] * 1e6))
    return out


def main():
    P = pts()
    run2 = sorted([p for p in P if p["set"] == "chost14-run2"], key=lambda p: p["n"])
    for i, p in enumerate(run2):
        p["fit"] = i % 2 == 0
    for p in P:
        if p["set"] == "host-probe":
            p["fit"] = p["order"] == 0
        elif p["set"] == "compiled2":
            p["fit"] = False
    for p in sorted(P, key=lambda p: (p["set"], p["n"])):
        print(f"{p['set']:13s} {p['key']:26s} order {p['order']} inputs {p['n']:4d}  pre {p['pre']:6.0f}  post {p['post']:5.0f}  "
              f"pre/post {p['pre'] / p['post']:5.2f}{'  (fit)' if p['fit'] else ''}")
    fit = [p for p in P if p["fit"]]
    xs, ys = [p["n"] for p in fit], [p["pre"] / p["post"] for p in fit]
    mx, my = st.mean(xs), st.mean(ys)
    beta = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    alpha = my - beta * mx
    print(f"\npre / post = {alpha:.2f} + {beta:.4f} x inputs (fit: {len(fit)} first shapes); n0 = alpha / beta = {alpha / beta:.0f} inputs")
    flat = st.median(ys)
    for name, S in (("chost14-run2 odd", [p for p in P if p["set"] == "chost14-run2" and not p["fit"]]),
                    ("h200-compiled2 first shapes", [p for p in P if p["set"] == "compiled2" and p["order"] == 0]),
                    ("second shapes (compiled2, host-probe)", [p for p in P if p["order"] == 1])):
        law = sorted(abs(p["post"] * (alpha + beta * p["n"]) / p["pre"] - 1) for p in S)
        fl = sorted(abs(p["post"] * flat / p["pre"] - 1) for p in S)
        print(f"  held out {name} ({len(S)}): pre from its own post, law {100 * st.median(law):.1f} / max {100 * law[-1]:.1f} %;"
              f" flat ratio {flat:.2f}: {100 * st.median(fl):.1f} / max {100 * fl[-1]:.1f} %")


if __name__ == "__main__":
    main()
