#!/usr/bin/env python3
"""Branch hostreplay: every committed measurement of a torch.compile (reduce-overhead, cudagraph trees)
decode call's host time before CUDAGraph.replay, with the graph's inputs (chost14_counts.py's exact laws:
4 + 12 a layer for the Llama family, 4 + 15 for Qwen2.5) and the process's shape order.

    python3 validation/scripts/production/hostreplay_points.py

Sources: h200-chost14/chost14-run2.jsonl (one lease, base variant, first shapes; stage timings),
h200-compiled2/compiled2.jsonl and h200-host-probe/probe.jsonl (pre_replay_s), h200-compiled/hf.json
(no pre_replay_s: device_s - kernel_s - 0.416 us x kernels, the traces' median gap, as an estimate).
"""
import json
import statistics as st

R = "validation/results/"


def inputs(model, layers):
    return 4 + (15 if model.startswith("qwen") else 12) * layers


def points():
    out = []
    for l in open(R + "h200-chost14/chost14-run2.jsonl"):
        r = json.loads(l)
        if "base_pre_all" not in r:
            continue
        out.append(dict(set="chost14-run2", model=r["model"], L=r["layers"], b=r["batch"], order=r["shape_index"],
                        host=st.median(r["base_pre_all"]) * 1e6, guardfree=st.median(r["noguard_pre_all"]) * 1e6
                        if r.get("noguard_pre_all") else None))
    for l in open(R + "h200-compiled2/compiled2.jsonl"):
        r = json.loads(l)
        out.append(dict(set="compiled2", model=r["model"], L=r["layers"], b=r["batch"], order=r["order_in_process"],
                        host=r["pre_replay_s"] * 1e6))
    for l in open(R + "h200-host-probe/probe.jsonl"):
        r = json.loads(l)
        if r.get("mode") != "compiled":
            continue
        out.append(dict(set="host-probe", model=r["model"], L=r["layers"], b=r["batch"], order=r["order_in_process"],
                        host=r["pre_replay_s"] * 1e6))
    d = json.load(open(R + "h200-compiled/hf.json"))
    for i, s in enumerate([s for s in d["steps"] if s["ok"]]):
        out.append(dict(set="compiled(est)", model=s["model"], L=s["layers"], b=s["batch"], order=None, step=i,
                        host=(s["device_s"] - s["kernel_s"] - 0.416e-6 * s["kernels_per_step"]) * 1e6))
    for p in out:
        p["inputs"] = inputs(p["model"], p["L"])
    return out


if __name__ == "__main__":
    for p in sorted(points(), key=lambda p: (p["set"], p["inputs"])):
        print(f"{p['set']:14s} {p['model']:15s} L{p['L']:<3d} b{p['b']:<3d} order {str(p['order']):4s} inputs {p['inputs']:4d}"
              f"  host {p['host']:6.0f} us  per input {p['host'] / p['inputs']:5.2f}"
              + (f"  guards skipped {p['guardfree']:5.0f}" if p.get("guardfree") else ""))
