#!/usr/bin/env python3
"""tf32 torch.linear figures per set (branch tf32rule): median / p90 |pred/meas - 1| and mean per profile,
and the tile hit rate (the model's tile, `perfmodel gemm --format json`, against the xmma kernel's name).
Fit half: h200-tf3217 even case index; check: its odd half, h200-heldout16, h200-heldout17 (never fitted).
usage: python3 tf32_figures.py build/tools/perfmodel/perfmodel"""
import json, re, subprocess, sys, statistics as st

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel"
R = "validation/results/"
SETS = {"tf3217 even (fit)": ("h200-tf3217", 0), "tf3217 odd (check)": ("h200-tf3217", 1),
        "heldout16 (check)": ("h200-heldout16", None), "heldout17 (check)": ("h200-heldout17", None),
        "heldgemm17": ("h200-heldgemm17", None), "production": ("h200-production", None)}


def measured(folder):
    d = json.load(open(R + folder + "/kernels.json"))
    out = {}
    for i, c in enumerate(d["cases"]):
        if c.get("dtype") != "tf32" or c.get("implementation") != "torch.linear" or not c.get("ok"):
            continue
        t = [re.search(r"tilesize(\d+)x(\d+)", k) for k in c.get("kernel_names", [])]
        t = [(int(x.group(1)), int(x.group(2))) for x in t if x]
        out[c["name"]] = dict(i=i, m=c["m"], n=c["n"], k=c["k"], tile=t[0] if t else None)
    return out


def model_tile(m, n, k):
    j = json.loads(subprocess.run([CLI, "gemm", "--card", "h200", "--dtype", "tf32", "--m", str(m), "--n", str(n),
                                   "--k", str(k), "--format", "json"], capture_output=True, text=True).stdout)
    tile = j.get("tile")
    if isinstance(tile, str) and "x" in tile:
        a, b = tile.split("x")
        return (int(a), int(b))
    return None


def q(a, p):
    a = sorted(a)
    return a[min(len(a) - 1, int(p * (len(a) - 1) + 0.5))]


for label, (folder, parity) in SETS.items():
    cases = {k: v for k, v in measured(folder).items() if parity is None or v["i"] % 2 == parity}
    acc = json.loads(subprocess.run([CLI, "accuracy", "--card", "h200", "--measured", R + folder + "/kernels.json",
                                     "--format", "json"], capture_output=True, text=True).stdout)
    line = [f"{label:20s} n={len(cases):3d}"]
    for prof in ("eager", "fused"):
        e = [pc["error"] for pc in acc["profile_cases"] if pc["profile"] == prof and pc["name"] in cases]
        if e:
            a = [abs(x) for x in e]
            line.append(f"{prof} {st.median(a)*100:5.1f} / {q(a, .9)*100:5.1f} % (mean {st.mean(e)*100:+5.1f})")
    named = [v for v in cases.values() if v["tile"]]
    hits = sum(model_tile(v["m"], v["n"], v["k"]) == v["tile"] for v in named)
    line.append(f"tile hit {hits}/{len(named)}")
    print("  ".join(line))
