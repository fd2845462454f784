#!/usr/bin/env python3
"""The decode GEMMs of validation/results/h200-block11 per kernel: alone (gemm11_iso.py) against inside
the fused step (fused_gaps.py's traces, the same lease), with the plan cuBLASLt ran (tile and split-K
from the main kernel's name and grid) and perfmodel's price of the same GEMM (`perfmodel gemm`, a
profile that carries a gemm block: --impl eager by default, --calibration to try another block).

    python3 validation/scripts/production/gemm11_compare.py PERFMODEL [--impl eager] [--calibration FILE] [--rows]

Prints one row per (model, M, role) with --rows, and the summary: per role and M range, the median
of (step kernels / alone kernels - 1) and of (price / step kernels - 1).
"""
import argparse
import json
import os
import re
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SET = os.path.join(ROOT, "validation/results/h200-block11")
STEP_KEY = {"tinyllama-1.1b": "tinyllama", "llama3-8b": "llama3_8b", "qwen2.5-7b": "qwen25_7b"}
ROLES = ("qkv", "o", "gateup", "down")


def nvjet_tile(name):
    """(weight rows, token rows) of an nvjet kernel's CTA tile: nvjet_sm90_tst_64x8_... -> (64, 8)."""
    m = re.search(r"nvjet_sm90_tst_(\d+)x(\d+)_", name)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def plan_of(main_name, ctas, n, m):
    tn, tm = nvjet_tile(main_name)
    if not tn:
        return "?", 1
    tiles = -(-n // tn) * -(-m // tm)
    split = max(1, round(ctas / tiles)) if "splitK" in main_name else 1
    return f"{tn}x{tm}", split


def step_gemms(trace):
    """The step's GEMMs in order: [main name, main us, reduce us or 0, CTAs]."""
    out = []
    for name, dur, _gap, ctas, _thr in trace:
        if name.startswith("nvjet"):
            out.append([name, dur, 0.0, ctas])
        elif "splitKreduce" in name and out:
            out[-1][2] = dur
    return out


def load():
    iso = {}
    for line in open(os.path.join(SET, "iso.jsonl")):
        p = json.loads(line)
        main = [k for k in p["kernels"] if k["name"].startswith("nvjet")]
        red = [k for k in p["kernels"] if "splitKreduce" in k["name"]]
        iso[(p["model"], p["m"], p["role"])] = dict(
            n=p["n"], k=p["k"], main=main[0]["dur_us"], reduce=red[0]["dur_us"] if red else 0.0,
            name=main[0]["name"], ctas=main[0]["ctas"])
    step = {}
    for line in open(os.path.join(SET, "steps.jsonl")):
        p = json.loads(line)
        if p.get("kind") != "point":
            continue
        g = step_gemms(p["trace"])
        per = {}
        for i, row in enumerate(g):
            per.setdefault(ROLES[i % 4], []).append(row)
        for r, rows in per.items():
            step[(STEP_KEY[p["model"]], p["batch"], r)] = dict(
                main=statistics.median(x[1] for x in rows), reduce=statistics.median(x[2] for x in rows),
                name=rows[0][0], ctas=rows[0][3], layers=len(rows))
    return iso, step


def price(pm, m, n, k, impl, cal):
    cmd = [pm, "gemm", "--card", "h200", "--m", str(m), "--n", str(n), "--k", str(k), "--impl", impl, "--format", "json"]
    if cal:
        cmd += ["--calibration", cal]
    d = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout)
    return d["device_time_s"] * 1e6, d["tile"], d["split_k"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("perfmodel")
    ap.add_argument("--impl", default="eager")
    ap.add_argument("--calibration")
    ap.add_argument("--rows", action="store_true")
    a = ap.parse_args()
    iso, step = load()
    out = []
    for key in sorted(iso, key=lambda t: (t[0], t[1], ROLES.index(t[2]))):
        if key not in step:
            continue
        i, s = iso[key], step[key]
        pr, tile, split = price(os.path.abspath(a.perfmodel), key[1], i["n"], i["k"], a.impl, a.calibration)
        it, st = i["main"] + i["reduce"], s["main"] + s["reduce"]
        ip, sp = plan_of(i["name"], i["ctas"], i["n"], key[1]), plan_of(s["name"], s["ctas"], i["n"], key[1])
        out.append(dict(key=key, iso=it, step=st, price=pr, iso_plan=ip, step_plan=sp, model_plan=(tile, split),
                        iso_red=i["reduce"], step_red=s["reduce"]))
        if a.rows:
            print(f"{key[0]:10s} M{key[1]:<4d} {key[2]:6s} N{i['n']:<6d} K{i['k']:<6d} alone {i['main']:6.2f}+{i['reduce']:4.2f} "
                  f"{ip[0]}/{ip[1]}  step {s['main']:6.2f}+{s['reduce']:4.2f} {sp[0]}/{sp[1]}  price {pr:6.2f} "
                  f"{tile}/{split}  step/alone {st / it - 1:+6.1%}  price/step {pr / st - 1:+6.1%}")
    print("role    M       GEMMs  step/alone-1  price/step-1 (median, mean; |.| median, p90)  split-K alone / step / priced")
    for role in ROLES + ("all",):
        for lo, hi in ((1, 8), (16, 64), (128, 128), (1, 128)):
            rows = [r for r in out if (role == "all" or r["key"][2] == role) and lo <= r["key"][1] <= hi]
            if not rows:
                continue
            sa = [r["step"] / r["iso"] - 1 for r in rows]
            ps = [r["price"] / r["step"] - 1 for r in rows]
            splits = (sum(r["iso_plan"][1] > 1 for r in rows), sum(r["step_plan"][1] > 1 for r in rows),
                      sum(r["model_plan"][1] > 1 for r in rows))
            ab = sorted(abs(x) for x in ps)
            print(f"{role:6s} {lo:3d}-{hi:<3d} {len(rows):5d}  {statistics.median(sa):+6.1%}        "
                  f"{statistics.median(ps):+6.1%} {statistics.fmean(ps):+6.1%}; {statistics.median(ab):5.1%} "
                  f"{ab[int(0.9 * (len(ab) - 1))]:5.1%}       {splits[0]} / {splits[1]} / {splits[2]}")


if __name__ == "__main__":
    main()
