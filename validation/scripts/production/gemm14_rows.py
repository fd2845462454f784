#!/usr/bin/env python3
"""Per-case rows of fit_gemm.py's GEMM sets under a calibration (branch gemm14): set, fitted?, M, N,
K, cuBLASLt's kernel (tile and split-K from its name), the model's plan (tile, split, tiles), the
kernel-only time measured and priced, and the error.

    python3 validation/scripts/production/gemm14_rows.py PERFMODEL CALIBRATION [SET-SUBSTRING]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_gemm  # noqa: E402


def kernel_tag(names):
    main = [n for n in names if "nvjet" in n or "gemm" in n.lower()]
    if not main:
        return ",".join(names)[:30]
    m = re.search(r"nvjet_sm90_\w+?_(\d+x\d+)_(\d+x\d+)_(\d+x\d+)", main[0])
    tag = f"{m.group(1)}_{m.group(2)}_{m.group(3)}" if m else main[0][:30]
    if "splitK" in main[0] or any("splitKreduce" in n for n in names):
        tag += " splitK"
    return tag


def main():
    pm, cal = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    want = sys.argv[3] if len(sys.argv) > 3 else ""
    shapes = {}
    for path in [fit_gemm.PROD] + fit_gemm.CHAIN + fit_gemm.HELD:
        for c in json.load(open(os.path.join(fit_gemm.ROOT, path)))["cases"]:
            if c["kernel"] == "gemm":
                shapes[c["name"]] = (c["m"], c["n"], c["k"], c.get("dtype", "bf16"), c.get("kernel_names") or [])
    with tempfile.TemporaryDirectory() as d:
        info, files = fit_gemm.case_sets(d)
        out = subprocess.run([pm, "accuracy", "--card", "h200", "--calibration", cal, "--measured", *files,
                              "--format", "json"], capture_output=True, text=True, cwd=fit_gemm.ROOT, check=True)
    for c in json.loads(out.stdout)["profile_cases"]:
        if c.get("profile") != "fused" or c["kernel"] != "gemm":
            continue
        label, impl, fitted = info[c["name"]]
        if want not in label or impl != "torch.linear":
            continue
        m, n, k, dt, names = shapes[c["name"]]
        g = json.loads(subprocess.run([pm, "gemm", "--card", "h200", "--calibration", cal, "--m", str(m), "--n", str(n),
                                       "--k", str(k), "--dtype", dt, "--format", "json"], capture_output=True, text=True,
                                      check=True).stdout)
        p, ms = c["predicted_s"], c["measured_s"]
        print(f"{label[5:]:12s} {'fit' if fitted else 'out'} {m:5d} {n:6d} {k:6d} {kernel_tag(names):30s} "
              f"{g['tile']:>7s} s{g['split_k']:<2d} t{g['tiles']:<5d} meas {ms * 1e6:7.2f} pred {p * 1e6:7.2f} {100 * (p / ms - 1):+6.1f} %")


if __name__ == "__main__":
    main()
