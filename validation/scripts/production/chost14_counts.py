#!/usr/bin/env python3
"""What the compiled decode call's host work counts, and whether a count explains the host time on
record (issue 10, task chost14: validation/results/h200-chost14).

    python3 validation/scripts/production/chost14_counts.py

1. From h200-chost14/chost14.jsonl (one device run; its timings were lost, its counts were not):
   per process, dynamo's leaf guards (by type), the cudagraph tree's static / non-static inputs,
   outputs and graphs; the per-layer law of each count, per model family (least squares over the
   depths measured).
2. Against the host time before CUDAGraph.replay already measured (`pre_replay_s`, first shape of a
   process; ../h200-host-probe and ../h200-compiled2, three leases): host = a + b x graph inputs,
   fitted on every other point (sorted by inputs) and held out on the rest, against one flat
   median fitted on the same points (what graph_call_host is). Printed, not priced.
"""
import json
import os
import statistics

R = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results")


def law(points):
    """(a, b) of y = a + b x, least squares."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return my - b * mx, b


def family(model):
    return "qwen2" if model.startswith("qwen") else "llama"


def counts():
    seen, rows = set(), []
    for ln in open(os.path.join(R, "h200-chost14", "chost14.jsonl")):
        r = json.loads(ln)
        key = (r["model"], r["layers"], r["shapes_in_process"])
        if key in seen:
            continue
        seen.add(key)
        g = [x for x in r["guards"] if "leaf_guards" in x]
        t = [x for x in r["tree"] if "static_inputs" in x]
        rows.append(dict(model=r["model"], layers=r["layers"], shapes=r["shapes_in_process"], params=r["params"],
                         entries=len(g), leaf_guards=g[0]["leaf_guards"], tensor_match=g[0]["guard_types"].get("TENSOR_MATCH"),
                         graphs=len(t), static_inputs=t[0]["static_inputs"], non_static=t[0]["non_static_inputs"],
                         outputs=t[0]["outputs"], compile_s=r["compile_s"]))
    return rows


def main():
    rows = counts()
    print("| model | layers | shapes compiled | parameters | cache entries | leaf guards (TENSOR_MATCH) | cudagraphs | static inputs | non-static | outputs | compile s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in sorted(rows, key=lambda r: (r["model"], r["layers"], r["shapes"])):
        print(f"| {r['model']} | {r['layers']} | {r['shapes']} | {r['params']} | {r['entries']} | {r['leaf_guards']} ({r['tensor_match']}) | "
              f"{r['graphs']} | {r['static_inputs']} | {r['non_static']} | {r['outputs']} | {r['compile_s']:.1f} |")
    laws = {}
    for fam in ("llama", "qwen2"):
        pts = [r for r in rows if family(r["model"]) == fam and r["shapes"] == 1]
        for what in ("static_inputs", "leaf_guards", "params"):
            a, b = law([(r["layers"], r[what]) for r in pts])
            worst = max(abs(a + b * r["layers"] - r[what]) for r in pts)
            laws[(fam, what)] = (a, b)
            print(f"{fam}: {what} = {a:.1f} + {b:.2f} x layers (over {sorted({r['layers'] for r in pts})}; worst residual {worst:.2f})")

    recs = []
    for path, mode in (("h200-host-probe/probe.jsonl", "compiled"), ("h200-compiled2/compiled2.jsonl", None)):
        for ln in open(os.path.join(R, path)):
            r = json.loads(ln)
            if (mode and r.get("mode") != mode) or r.get("order_in_process", 0) != 0 or not r.get("pre_replay_s"):
                continue
            a, b = laws[(family(r["model"]), "static_inputs")]
            recs.append(dict(set=path.split("/")[0], model=r["model"], layers=r["layers"], batch=r["batch"],
                             inputs=round(a + b * r["layers"]), host=r["pre_replay_s"] * 1e6))
    recs.sort(key=lambda r: r["inputs"])
    fit, held = recs[0::2], recs[1::2]
    a, b = law([(r["inputs"], r["host"]) for r in fit])
    flat = statistics.median(r["host"] for r in fit)
    print()
    print(f"host before the replay (us) = {a:.1f} + {b:.3f} x graph inputs, fitted on {len(fit)} points; flat median {flat:.1f}")
    print("| set | model | layers | batch | graph inputs | measured | a + b x inputs | flat | fitted on |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in recs:
        print(f"| {r['set']} | {r['model']} | {r['layers']} | {r['batch']} | {r['inputs']} | {r['host']:.0f} | "
              f"{a + b * r['inputs']:.0f} | {flat:.0f} | {'yes' if r in fit else 'no'} |")
    for name, pred in (("a + b x inputs", lambda r: a + b * r["inputs"]), ("flat", lambda r: flat)):
        e = [abs(pred(r) / r["host"] - 1) for r in held]
        print(f"held out ({len(held)}): {name}: median |error| {100 * statistics.median(e):.0f} %, worst {100 * max(e):.0f} %")
    same = [r for r in rows if r["layers"] == 32 and r["shapes"] == 1]
    if len(same) == 2:
        k = ("leaf_guards", "static_inputs", "non_static", "outputs", "graphs")
        print(f"32 layers, {same[0]['model']} vs {same[1]['model']}: identical counts: "
              f"{all(same[0][x] == same[1][x] for x in k)} ({', '.join(f'{x} {same[0][x]}' for x in k)})")


if __name__ == "__main__":
    main()
