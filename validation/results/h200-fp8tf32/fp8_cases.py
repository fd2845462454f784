#!/usr/bin/env python3
"""Every tensor-wise FP8 torch._scaled_mm case the repository measured, with its nvjet kernel's tile,
K tile, stages and cluster read off the name, priced by a perfmodel binary (branch fp8tf32).

    python3 validation/results/h200-fp8tf32/fp8_cases.py PERFMODEL [--table]

Sets: h200-quant (FIT_SHAPES half = 'quant fit', rest 'quant held'), h200-quant2 sweeps, h200-production,
h200-fp8mm14 probe (development sets), h200-heldout16 / 17 (check), h200-heldout18 (check, looked at).
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "validation", "scripts", "quant"))
from fit_quant import FIT_SHAPES  # noqa: E402

R = os.path.join(ROOT, "validation", "results")
FILES = [("quant", "h200-quant/quant-0.json"), ("quant", "h200-quant/quant-1.json"),
         ("quant2", "h200-quant2/quant2.json"), ("production", "h200-production/kernels.json"),
         ("fp8mm14", "h200-fp8mm14/fp8mm14.json"), ("heldout16", "h200-heldout16/kernels.json"),
         ("heldout17", "h200-heldout17/kernels.json"), ("heldout18", "h200-heldout18/kernels.json")]
NAME = re.compile(r"qqtst_(\d+)x(\d+)_(\d+)x(\d+)_(\d+)x(\d+)_([vh])_")


def parse(kn):
    for k in kn:
        m = NAME.search(k)
        if m:
            a, b, kt, st, cx, cy, o = m.groups()
            return dict(tn=int(a), tm=int(b), kt=int(kt), stages=int(st), cx=int(cx), cy=int(cy), orient=o,
                        coop="coopA" in k, split="splitK" in k, layout=k[-3:], kernel=k)
    return None


def cases():
    out = []
    for group, f in FILES:
        for c in json.load(open(os.path.join(R, f)))["cases"]:
            if not c.get("ok") or not c.get("correct", True):
                continue
            tensor = c.get("implementation") == "torch.scaled_mm" or \
                (c.get("kernel") == "gemm_scaled" and c.get("dtype") == "fp8" and c.get("scaling") == "tensor")
            if not tensor:
                continue
            c = dict(c, m=c.get("m_padded") or c["m"], kernel="gemm_scaled" if c.get("kernel") == "gemm_scaled" else c["kernel"])
            g = group
            if group == "quant":
                g = "quant fit" if (c["model"], c["shape"]) in FIT_SHAPES else "quant held"
            c["group"] = g
            c["tile"] = parse(c.get("kernel_names", []))
            c["name"] = f"{len(out)}:{c['name']}"
            out.append(c)
    return out


def price(binary, cs):
    meta = json.load(open(os.path.join(R, "h200-production/kernels.json")))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"schema_version": meta["schema_version"], "meta": meta["meta"], "summary": meta["summary"],
                   "cases": [{k: v for k, v in c.items() if k not in ("tile", "group")} for c in cs]}, f)
        path = f.name
    out = json.loads(subprocess.run([binary, "accuracy", "--card", "h200", "--measured", path, "--format", "json"],
                                    capture_output=True, text=True, check=True).stdout)
    os.unlink(path)
    return {c["name"]: c for c in out["cases"]}


def p90(v):
    v = sorted(v)
    q = (len(v) - 1) * 0.9
    return v[int(q)] + (v[min(int(q) + 1, len(v) - 1)] - v[int(q)]) * (q - int(q))


def stats(e):
    a = [abs(x) for x in e]
    return f"{len(a):4d}  median {100 * statistics.median(a):5.1f} %  p90 {100 * p90(a):5.1f} %  mean {100 * statistics.mean(e):+5.1f} %"


def main():
    binary = sys.argv[1]
    cs = cases()
    pr = price(binary, cs)
    if "--table" in sys.argv:
        for c in cs:
            t = c["tile"] or {}
            p = pr[c["name"]]
            print(f"{c['group']:11s} m{c['m']:5d} n{c['n']:6d} k{c['k']:6d} "
                  f"{t.get('tn', 0):3d}x{t.get('tm', 0):<3d} {t.get('kt', 0)}x{t.get('stages', 0):<2d} "
                  f"{t.get('cx', 0)}x{t.get('cy', 0)}{t.get('orient', '')} {'coop' if t.get('coop') else '    '} "
                  f"{'split' if t.get('split') else '     '} meas {c['measured_s'] * 1e6:8.2f} pred {p['predicted_s'] * 1e6:8.2f} "
                  f"{100 * p['error']:+6.1f} %")
    for g in dict.fromkeys(c["group"] for c in cs):
        print(f"  {g:12s}", stats([pr[c['name']]["error"] for c in cs if c["group"] == g]))


if __name__ == "__main__":
    main()
