#!/usr/bin/env python3
"""gemm_chain.py's chain.json -> kernels.json cases that `perfmodel accuracy --measured` reads, and a
chain-vs-isolated table (validation/results/h200-gemm-chain/README.md).

A GEMM's time inside the chain is what it adds to the graph replay: its kernels' durations (the
nvjet kernel and a split-K plan's splitKreduce) plus the GPU idle before each of them, the median
over the chain's layers. That is the quantity harness.py measures for an isolated GEMM (graph
replay / launches), so the two compare one to one.

    python3 validation/scripts/production/chain_cases.py CHAIN_JSON[.gz] OUT_KERNELS_JSON [--variant chain_L16]
"""
import argparse
import gzip
import json
import statistics

FUSED_ROLES = ["qkv", "o", "gateup", "down"]  # the first run's chain.json has no "roles" (fused layout)
CASE_FIELDS = dict(rows=0, cols=0, vocab=0, batch=0, heads=0, kv_heads=0, q_len=0, kv_len=0, head_dim=0,
                   causal=False, residual=False, l2_resident=False, spin_seconds=0)


def gemms(kernels):
    """Group a replay's kernels into GEMMs: an nvjet kernel, plus the splitKreduce right after it;
    other kernels (the elementwise op of chain_elt) are dropped with the idle before them."""
    out = []
    for k in kernels:
        n = k["name"]
        gap = k["gap_before_us"] or 0.0
        if "splitKreduce" in n and out:
            out[-1]["us"] += k["dur_us"] + gap
            out[-1]["kernel_us"] += k["dur_us"]
            out[-1]["names"].append(n)
        elif "nvjet" in n or "gemm" in n.lower():
            out.append({"us": k["dur_us"] + gap, "kernel_us": k["dur_us"], "names": [n]})
    return out


def per_role(point):
    """role -> (median in-graph us per GEMM, median kernel-only us, kernel names of the first layer)."""
    g = gemms(point["kernels"])
    if point["variant"].startswith("iso_"):
        r = point["variant"][4:]
        return {r: (statistics.median(x["us"] for x in g), statistics.median(x["kernel_us"] for x in g), g[0]["names"])}
    roles = point.get("roles", FUSED_ROLES)
    n = len(roles)
    if len(g) != n * point["layers"]:
        return {}
    return {r: (statistics.median(x["us"] for x in g[i::n]), statistics.median(x["kernel_us"] for x in g[i::n]),
                g[i]["names"]) for i, r in enumerate(roles)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("chain")
    ap.add_argument("out")
    ap.add_argument("--variant", default="chain_L16")
    a = ap.parse_args()
    # The raw file is kept gzipped in the results folder: perfmodel accuracy reads every *.json there.
    d = json.load(gzip.open(a.chain, "rt") if a.chain.endswith(".gz") else open(a.chain))
    cases = []
    iso = {}
    for p in d["points"]:
        if p["variant"].startswith("iso_"):
            for r, v in per_role(p).items():
                iso[(p["model"], p["m"], r)] = v
    for p in d["points"]:
        if p["variant"] != a.variant:
            continue
        for r, (us, kus, names) in per_role(p).items():
            n, k = p["shapes"][r]
            m = p["m"]
            c = dict(m=m, n=n, k=k, **CASE_FIELDS)
            tag = "chain" if p.get("layout", "fused") == "fused" else f"chain_{p['layout']}"
            c.update(name=f"{tag}_linear_bf16_{p['model']}_{r}_m{m}_n{n}_k{k}", kernel="gemm", dtype="bf16",
                     implementation="torch.linear", flops=2 * m * n * k, bytes=2 * (m * k + n * k + m * n), ok=True,
                     error="", correct=True, measured_s=us * 1e-6, median_s=us * 1e-6, kernel_s=kus * 1e-6,
                     kernels_per_launch=len(names), kernel_names=names, graph=True, chain_variant=a.variant,
                     chain_layers=p["layers"])
            i = iso.get((p["model"], m, r))
            if i:
                c["isolated_s"] = i[0] * 1e-6
                c["isolated_kernel_s"] = i[1] * 1e-6
            cases.append(c)
    meta = dict(d["meta"], derived_by="validation/scripts/production/chain_cases.py", variant=a.variant)
    if not isinstance(meta.get("device"), dict):  # the first run's chain.json kept the device's name alone
        meta["device"] = {"name": meta.pop("device"), "sm_count": meta.pop("sm_count"), "l2_bytes": meta.pop("l2_bytes")}
    out = {"schema_version": 1, "meta": meta,
           "summary": {"cases": len(cases), "ok": len(cases), "correct": len(cases), "converged": 0}, "cases": cases}
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    rel = [c["measured_s"] / c["isolated_s"] - 1 for c in cases if "isolated_s" in c]
    krel = [c["kernel_s"] / c["isolated_kernel_s"] - 1 for c in cases if "isolated_s" in c]
    q = lambda v, f: sorted(v)[min(len(v) - 1, int(f * len(v)))]
    print(f"{len(cases)} cases; in-graph time chain/isolated - 1: median {statistics.median(rel) * 100:+.1f} %, "
          f"p10 {q(rel, 0.1) * 100:+.1f} %, p90 {q(rel, 0.9) * 100:+.1f} %; kernel only: median "
          f"{statistics.median(krel) * 100:+.1f} %, p10 {q(krel, 0.1) * 100:+.1f} %, p90 {q(krel, 0.9) * 100:+.1f} %")


if __name__ == "__main__":
    main()
