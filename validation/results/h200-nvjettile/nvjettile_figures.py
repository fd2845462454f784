#!/usr/bin/env python3
"""Branch nvjettile (issue 10): GEMM errors per set and profile (held out as targets.py holds them out) and how
often the fused profile's chosen tile is the one cuBLASLt ran (the nvjet kernel name, weight rows x tokens).
Committed data only.

    python3 validation/results/h200-nvjettile/nvjettile_figures.py PERFMODEL

Each column is one calibration: hardware/h200.calibration.yaml without its `nvjet_fill_tiles` lines (before
this branch; written to a temporary file), then the committed file (the fill tiles in the fused block and,
since branch eagertile, the eager block: the branch's opt-in file became the default and was removed). Any
further arguments are more calibration files to compare.

Sets: h200-production, h200-gemm-small (odd cases held out), h200-gemm-chain (Llama-2-7B, TinyLlama held
out), h200-heldout18 (all held out: a check, nothing fitted on it); h200-heldout16 / 17 are printed as the
check sets they are (all cases).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

R = "validation/results/"
SETS = ["h200-production", "h200-gemm-small", "h200-gemm-chain", "h200-heldout18", "h200-heldout16", "h200-heldout17"]
NAME = re.compile(r"nvjet_sm90_(?:tst|hsh)_(\d+)x(\d+)_")


def quantile(v, q):
    v = sorted(v)
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def errors(pm, s):
    pm, cal = pm
    out = subprocess.run([pm, "accuracy", "--card", "h200", "--calibration", cal, "--measured", R + s + "/kernels.json",
                          "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for c in json.loads(out)["profile_cases"]:
        if c["kernel"] != "gemm":
            continue
        if s == "h200-gemm-chain":
            held = "llama2_7b" in c["name"] or "tinyllama" in c["name"]
        elif s in ("h200-production", "h200-gemm-small"):
            held = c["held_out"]
        else:
            held = True
        rows.setdefault(c["profile"], []).append((c["name"], held, c["error"]))
    return rows


def tile_of(pm, c):
    pm, cal = pm
    out = subprocess.run([pm, "gemm", "--card", "h200", "--calibration", cal, "--m", str(c["m"]), "--n", str(c["n"]), "--k", str(c["k"]),
                          "--dtype", c["dtype"], "--impl", "fused", "--format", "json"], capture_output=True, text=True,
                         check=True).stdout
    t = json.loads(out)
    tile = json.dumps(t)
    m = re.search(r'"tile": "(\d+)x(\d+)"', tile)
    return (int(m.group(1)), int(m.group(2))) if m else None


def main():
    before = os.path.join(tempfile.mkdtemp(), "h200.before.yaml")
    with open("hardware/h200.calibration.yaml") as f, open(before, "w") as g:
        g.writelines(line for line in f if "nvjet_fill_tiles:" not in line)
    cals = [before, "hardware/h200.calibration.yaml"] + sys.argv[2:]
    pms = [(sys.argv[1], c) for c in cals]
    for s in SETS:
        per = [errors(pm, s) for pm in pms]
        for prof in ("fused", "eager", "compiled"):
            cells = []
            for rows in per:
                e = [abs(x[2]) for x in rows.get(prof, []) if x[1]]
                cells.append(f"{100 * quantile(e, 0.5):4.1f} / {100 * quantile(e, 0.9):4.1f}" if e else "-")
            n = len([x for x in per[0].get(prof, []) if x[1]])
            print(f"{s:16s} {prof:8s} n={n:3d}  " + "  ->  ".join(cells))
    # Tile hit rate, fused profile, bf16 / fp16 nvjet calls at M >= 129 (the fill tiles' rows).
    for s in SETS:
        cases = json.load(open(R + s + "/kernels.json"))["cases"]
        hits = [0] * len(pms)
        n = 0
        for c in cases:
            if c.get("dtype") not in ("bf16", "fp16") or not c.get("m") or c["m"] <= 128 or c.get("kernel") != "gemm":
                continue
            names = [x for x in c.get("kernel_names") or [] if "nvjet" in x]
            if not names:
                continue
            mm = NAME.search(names[0])
            if not mm:
                continue
            n += 1
            ran = (int(mm.group(2)), int(mm.group(1)))  # tokens x weight rows
            for i, pm in enumerate(pms):
                hits[i] += tile_of(pm, c) == ran
        print(f"{s:16s} tile hits (M > 128): " + "  ->  ".join(f"{h} / {n}" for h in hits))


if __name__ == "__main__":
    main()
