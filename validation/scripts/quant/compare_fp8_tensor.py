#!/usr/bin/env python3
"""Tensor-wise FP8 torch._scaled_mm cases priced by a perfmodel binary, per set and by rows (branch
fp8mm14: the before / after figures of docs/accuracy-notes.md "Branch fp8mm14" and
validation/results/h200-fp8mm14/README.md).

    python3 validation/scripts/quant/compare_fp8_tensor.py PERFMODEL [PERFMODEL ...]

Every correct tensor-wise case of h200-quant (split into FIT_SHAPES and the rest), h200-quant2's
sweeps, h200-production's torch.scaled_mm and h200-fp8mm14's probe, as `perfmodel accuracy --card
h200` prices them (kind gemm_scaled, rows as the harness padded them, the harness's L2 hit from
the rotated bytes); |error| median, p90 (linear interpolation) and mean signed error.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_quant import FIT_SHAPES  # noqa: E402

R = "validation/results/"
FILES = {"h200-quant": [R + "h200-quant/quant-0.json", R + "h200-quant/quant-1.json"],
         "h200-quant2 sweeps": [R + "h200-quant2/quant2.json"],
         "h200-production": [R + "h200-production/kernels.json"],
         "h200-fp8mm14 probe": [R + "h200-fp8mm14/fp8mm14.json"]}


def cases():
    out = []
    for group, files in FILES.items():
        for f in files:
            for c in json.load(open(f))["cases"]:
                if not c.get("ok") or not c.get("correct", True):
                    continue
                if c.get("implementation") == "torch.scaled_mm" or \
                        (c.get("kernel") == "gemm_scaled" and c.get("dtype") == "fp8" and c.get("scaling") == "tensor"):
                    c = dict(c, m=c.get("m_padded", c["m"]), kernel="gemm_scaled")
                    if group == "h200-quant":
                        fit = (c["model"], c["shape"]) in FIT_SHAPES
                        c["group"] = group + (" fit half" if fit else " held out")
                    else:
                        c["group"] = group
                    c["name"] = f"{len(out)}:{c['name']}"
                    out.append(c)
    return out


def stats(e):
    v = sorted(abs(x) for x in e)
    q = (len(v) - 1) * 0.9
    p90 = v[int(q)] + (v[min(int(q) + 1, len(v) - 1)] - v[int(q)]) * (q - int(q))
    return f"{len(v):4d}  median {100 * statistics.median(v):5.1f} %  p90 {100 * p90:5.1f} %  mean {100 * statistics.mean(e):+5.1f} %"


def main(binaries):
    cs = cases()
    meta = json.load(open(FILES["h200-production"][0]))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"schema_version": meta["schema_version"], "meta": meta["meta"], "summary": meta["summary"],
                   "cases": cs}, f)
        path = f.name
    by_name = {c["name"]: c for c in cs}
    for b in binaries:
        out = json.loads(subprocess.run([b, "accuracy", "--card", "h200", "--measured", path, "--format", "json"],
                                        capture_output=True, text=True, check=True).stdout)
        err = {c["name"]: c["error"] for c in out["cases"]}
        print(b)
        for g in sorted({c["group"] for c in cs}):
            print(f"  {g:26s}", stats([err[n] for n, c in by_name.items() if c["group"] == g]))
        for lo, hi in ((16, 16), (32, 64), (128, 256), (1024, 8192)):
            print(f"  {'rows ' + str(lo) + '-' + str(hi) + ' (all sets)':26s}",
                  stats([err[n] for n, c in by_name.items() if lo <= c["m"] <= hi]))
    os.unlink(path)


if __name__ == "__main__":
    main(sys.argv[1:])
