#!/usr/bin/env python3
"""fit_gemm.py's GEMM sets priced under a given calibration, no fit (branch block11): per set and
implementation, the fitted and held-out cases' median / p90 |error| and mean signed error, the fused
profile's block against the kernels alone (profile_accuracy.cpp's gemm_kernel_time_s).

    python3 validation/scripts/production/gemm11_sets.py PERFMODEL CALIBRATION
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_gemm  # noqa: E402


def main():
    pm, cal = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as d:
        info, files = fit_gemm.case_sets(d)
        rows = fit_gemm.cases(pm, cal, files, info)
    for label in sorted({r[0] for r in rows}):
        for impl in sorted({r[1] for r in rows if r[0] == label}):
            for part, keep in (("fitted", True), ("held out", False)):
                errs = [p / m - 1 for lb, im, f, p, m in rows if lb == label and im == impl and f == keep]
                if errs:
                    md, p9 = fit_gemm.stats(errs)
                    print(f"{label} {impl} {part}: {len(errs)} cases, median {md * 100:.1f} %, p90 {p9 * 100:.1f} %, "
                          f"mean {sum(errs) / len(errs) * 100:+.1f} %")


if __name__ == "__main__":
    main()
