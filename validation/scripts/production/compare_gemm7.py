#!/usr/bin/env python3
"""Prices h200-gemm7's F.linear kernels (rope_gemm.json.gz, `gemm`) with `perfmodel gemm` and prints
measured kernel time (profiler, Memsets left out), predicted time, error, the model's tile and
split and cuBLASLt's tile; then median / p90 abs.

    python3 validation/scripts/production/compare_gemm7.py [perfmodel] [--calibration FILE]
"""
import gzip
import json
import subprocess
import sys

RESULTS = "validation/results/h200-gemm7/rope_gemm.json.gz"


def main():
    pm = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "build/tools/perfmodel/perfmodel"
    extra = sys.argv[sys.argv.index("--calibration"):][:2] if "--calibration" in sys.argv else []
    errs = []
    for r in json.load(gzip.open(RESULTS))["gemm"]:
        out = subprocess.run([pm, "gemm", "--card", "h200", "--m", str(r["m"]), "--n", str(r["n"]), "--k", str(r["k"]),
                              "--format", "json"] + extra, capture_output=True, text=True, check=True)
        d = json.loads(out.stdout)
        meas = sum(v[0] for k, v in r["kernels"].items() if "Memset" not in k)
        nvjet = [k for k in r["kernels"] if "nvjet" in k][0].split("_")[3]
        e = d["time_s"] * 1e6 / meas - 1
        errs.append(abs(e))
        print(f"{r['tag']:<18} {r['m']:5d} {r['n']:6d} {r['k']:5d}  meas {meas:6.2f}  pred {d['time_s'] * 1e6:6.2f}  "
              f"{e * 100:+6.1f}%  {d['tile']:<10} split {d['split_k']:<3d} nvjet {nvjet}")
    errs.sort()
    print(f"median {errs[len(errs) // 2] * 100:.1f}% p90 {errs[int(0.9 * len(errs))] * 100:.1f}%")


if __name__ == "__main__":
    main()
