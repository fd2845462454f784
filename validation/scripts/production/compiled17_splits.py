#!/usr/bin/env python3
"""cuBLASLt's split-K count with the 4-CTA cluster cap (branch compiled17; lib/src/kernels/gemm_tiling.cpp,
cublaslt_split), read off nvjet kernel names and grids. A grid of G CTA tiles (cuBLASLt's own tile, from
the name) over K is split s ways, s = min(CAP / G, K / D) (a grid of 4-CTA clusters, CAP = 112 of 132
SMs), or s' = min(132 / G, K / D) where s' > s and K / s - K / s' >= GAIN; unsplit where that is under 2.

Fit set: validation/results/h200-block11 (iso.jsonl and steps.jsonl, every GEMM's name and grid).
Held out: validation/results/h200-compiled2's compiled decode traces (HF's separate q, k, v, o, gate,
up, down; the per-layer order of the nvjet kernels). Prints, for each set, the GEMMs whose measured
count the rule misses, for the committed (D, CAP, GAIN) and for block11's rule (D 1536, no cap).

    python3 validation/scripts/production/compiled17_splits.py
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemm11_compare as gc  # noqa: E402

SMS = 132
TRACES = "validation/results/h200-compiled2/compiled2.jsonl"
# (hidden, kv rows, intermediate) of the HF models compiled2 traced: config.json of each model.
DIMS = {"tinyllama-1.1b": (2048, 256, 5632), "llama3-8b": (4096, 1024, 14336), "qwen2.5-7b": (3584, 512, 18944),
        "llama2-7b": (4096, 4096, 11008), "mistral-7b": (4096, 1024, 14336)}


def rule(grid, k, depth, cap, gain):
    clustered = min(cap // grid, k // depth)
    wide = min(SMS // grid, k // depth)
    s = clustered
    if wide > clustered and k / max(1, clustered) - k / wide >= gain:
        s = wide
    return s if s >= 2 else 1


def measured(name, ctas, n, m):
    t = re.search(r"tst_(\d+)x(\d+)_", name)
    tw, tt = int(t.group(1)), int(t.group(2))
    grid = -(-n // tw) * -(-m // tt)
    if "splitK" not in name:
        return grid, 1
    return grid, max(2, ctas // grid)


def block11_rows():
    iso, step = gc.load()
    rows = []
    for src, tag in ((iso, "alone"), (step, "step")):
        for key, r in src.items():
            n, k = iso[key]["n"], iso[key]["k"]
            grid, s = measured(r["name"], r["ctas"], n, key[1])
            rows.append((f"{key[0]} M{key[1]} {key[2]} ({tag})", grid, k, s))
    return rows


def compiled2_rows():
    rows = []
    for line in open(os.path.join(gc.ROOT, TRACES)):
        r = json.loads(line)
        h, kv, inter = DIMS[r["model"]]
        shapes = [(h, h), (kv, h), (kv, h), (h, h), (inter, h), (inter, h), (h, inter)]
        roles = ["q", "k", "v", "o", "gate", "up", "down"]
        nv = [t for t in r["trace"] if t[0].startswith("nvjet")][: 7 * r["layers"]]
        for i, t in enumerate(nv):
            n, k = shapes[i % 7]
            grid, s = measured(t[0], t[3], n, r["batch"])
            rows.append((f"{r['model']} b{r['batch']} {roles[i % 7]}", grid, k, s))
    return rows


def misses(rows, depth, cap, gain):
    bad = {}
    for label, grid, k, s in rows:
        p = rule(grid, k, depth, cap, gain)
        if p != s:
            bad[(label, grid, k, s, p)] = bad.get((label, grid, k, s, p), 0) + 1
    return bad


def main():
    sets = (("block11 (fit)", block11_rows()), ("compiled2 traces (held out)", compiled2_rows()))
    for depth, cap, gain, what in ((1280, 112, 1024, "compiled17: D 1280, cap 112, gain 1024"),
                                   (1536, SMS, 0, "block11: D 1536, no cap")):
        print(f"## {what}")
        for name, rows in sets:
            bad = misses(rows, depth, cap, gain)
            print(f"{name}: {len(rows) - sum(bad.values())} of {len(rows)} GEMMs get the measured count")
            seen = set()
            for (label, grid, k, s, p), c in sorted(bad.items()):
                short = (label.split(" (")[0].rsplit(" ", 0)[0], grid, k, s, p)
                if short in seen:
                    continue
                seen.add(short)
                print(f"   {label}: grid {grid}, K {k}: measured {s}, rule {p} (x{c})")
    # The range of each constant that block11 alone allows, the others held at their values.
    fit = sets[0][1]
    for name, values, mk in (("D", range(1024, 2049, 32), lambda v: (v, 112, 1024)),
                             ("CAP", range(96, 133), lambda v: (1280, v, 1024)),
                             ("GAIN", range(0, 2049, 32), lambda v: (1280, 112, v))):
        ok = [v for v in values if not misses(fit, *mk(v))]
        print(f"block11 alone admits {name} in {ok[0] if ok else '-'}..{ok[-1] if ok else '-'}" +
              (" (with gaps)" if ok and len(ok) != (ok[-1] - ok[0]) // (values.step) + 1 else ""))


if __name__ == "__main__":
    main()
