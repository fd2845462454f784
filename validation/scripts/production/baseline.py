#!/usr/bin/env python3
"""perfmodel's error on the production measurements, per category and implementation (runs on the
development machine, no torch needed):

    python3 validation/scripts/production/baseline.py validation/results/h200-production \
        [--perfmodel build/tools/perfmodel/perfmodel]

Runs `perfmodel accuracy --measured DIR/kernels.json --card h200 --format json` (calibrated, and
again with --no-calibration), joins its per-case errors with each case's `implementation`, and
prints median / p90 of |predicted/measured - 1| and the median signed error per (kernel,
implementation). For the Hugging Face steps in DIR/hf.json it runs `perfmodel decode|prefill
--impl eager --format json` and compares the one step time it prints with the measured wall time
and GPU kernel time. Writes DIR/baseline.json.
"""
import argparse
import json
import statistics
import subprocess
import sys


def pct(v, q):
    v = sorted(v)
    pos = q * (len(v) - 1)
    lo, hi = int(pos), min(int(pos) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def perfmodel_json(exe, args):
    p = subprocess.run([exe, *args, "--format", "json"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{exe} {' '.join(args)} failed: {p.stderr.strip()}")
    return json.loads(p.stdout)


def stats(errs):
    a = [abs(e) for e in errs]
    return {"cases": len(a), "median_abs": statistics.median(a), "p90_abs": pct(a, 0.9),
            "median_signed": statistics.median(errs)}


def kernel_table(exe, path, extra):
    meas = json.load(open(path))
    impl = {c["name"]: c for c in meas["cases"]}
    acc = perfmodel_json(exe, ["accuracy", "--measured", path, "--card", "h200", *extra])
    groups = {}
    rows = []
    for e in acc["cases"]:
        c = impl[e["name"]]
        key = (c["kernel"], c["implementation"])
        groups.setdefault(key, []).append(e["error"])
        groups.setdefault(("all " + e["set"], "all"), []).append(e["error"])
        rows.append({"name": e["name"], "kernel": c["kernel"], "implementation": c["implementation"],
                     "predicted_s": e["predicted_s"], "measured_s": e["measured_s"], "error": e["error"]})
    return {f"{k[0]} | {k[1]}": stats(v) for k, v in sorted(groups.items())}, rows


def hf_table(exe, path):
    out = []
    for s in json.load(open(path))["steps"]:
        if not s.get("ok"):
            continue
        args = [s["phase"], "--model", s["model"], "--card", "h200", "--batch", str(s["batch"]), "--ctx",
                str(s["ctx"]), "--impl", "eager", "--eager-cache",
                "contiguous" if s.get("cache_layout") == "contiguous" else "cropped"]
        r = perfmodel_json(exe, args)
        pred = r["step"]["time_s"]
        out.append({**{k: s[k] for k in ("model", "phase", "batch", "ctx", "wall_s", "kernel_s")},
                    "predicted_s": pred, "error_vs_wall": pred / s["wall_s"] - 1,
                    "error_vs_kernel": pred / s["kernel_s"] - 1})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--perfmodel", default="build/tools/perfmodel/perfmodel")
    a = ap.parse_args()
    res = {}
    for label, extra in (("calibrated", []), ("datasheet", ["--no-calibration"])):
        table, rows = kernel_table(a.perfmodel, f"{a.dir}/kernels.json", extra)
        res[label] = {"groups": table, "cases": rows}
        print(f"\n{label}: kernel | implementation | cases | median |err| | p90 |err| | median signed")
        for k, s in table.items():
            print(f"| {k} | {s['cases']} | {s['median_abs'] * 100:.1f} % | {s['p90_abs'] * 100:.1f} % | "
                  f"{s['median_signed'] * 100:+.1f} % |")
    try:
        res["hf"] = hf_table(a.perfmodel, f"{a.dir}/hf.json")
    except FileNotFoundError:
        res["hf"] = []
    print("\nHF: model phase batch ctx | wall ms | kernel ms | predicted (--impl eager) ms | vs wall | vs kernel")
    for h in res["hf"]:
        print(f"| {h['model']} {h['phase']} b{h['batch']} ctx{h['ctx']} | {h['wall_s'] * 1e3:.2f} | "
              f"{h['kernel_s'] * 1e3:.2f} | {h['predicted_s'] * 1e3:.2f} | {h['error_vs_wall'] * 100:+.0f} % | "
              f"{h['error_vs_kernel'] * 100:+.0f} % |")
    with open(f"{a.dir}/baseline.json", "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
