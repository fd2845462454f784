#!/usr/bin/env python3
"""Fits the compiled profile's `inductor:` rates (Inductor's looped row reductions; stream_cost.cpp,
inductor_issue_s; profile_calibration.hpp, InductorKernels).

Usage: python3 validation/scripts/production/fit_inductor.py [h200-production/kernels.json] [h200-eltwise4/kernels.json]

What Inductor generates (validation/results/h200-eltwise4/inductor_code.json, PyTorch 2.11): a row of
more than 1024 columns is a looped reduction (triton_red_*, ReductionHint.INNER: XBLOCK 1, R0_BLOCK
2048, 16 warps), walking the row twice in 2048-column blocks, the last one masked but issued in
full. Its per-element work (F.layer_norm's Welford update with a division per element,
torch.softmax's online max/sum with two exps, then an exp and a divide) is issue-bound on the SM:
an SM holds ceil(rows / SMs) rows of the padded width, the first one's issue hidden under its own
round trips, each further one queued behind.

Fit set, stated: the EVEN case indices of validation/results/h200-production (its torch.compile
rows: no large layernorm among them) AND the even indices of validation/results/h200-eltwise4's
torch.compile cases (measured for this fit; its odd indices and all of h200-eltwise3 are held
out). Per op, over its looped fit cases with at least 4 rows per SM (the issue-bound regime):
the slope of t over (ceil(rows / SMs) - 1) x padded cols (least squares), rate = SMs / slope.
An op whose fit cases stream their bytes (read + write) at a median of at least STREAM_SHARE of the
card's copy rate (dram_bandwidth in hardware/h200.calibration.yaml) is not issue-bound on the walk:
it streams and gets no rate (rms_norm: 3.4 TB/s of 4.0, its 12288 x 5120 with a fifth of the walk
masked at the stream's time; layer_norm and softmax 1.7 and 1.5 TB/s; branch eltwise5).
`perfmodel accuracy` recomputes every error with the C++ model.
"""
import json
import math
import re
import statistics
import sys

SMS, BLOCK, PERSISTENT = 132, 2048, 1024
STREAM_SHARE = 0.75
OPS = {"rmsnorm": "rmsnorm_elements_per_s", "layernorm": "layernorm_elements_per_s",
       "softmax_fused": "softmax_elements_per_s"}


def even_compiled(path):
    return [c for i, c in enumerate(json.load(open(path))["cases"])
            if i % 2 == 0 and c.get("implementation") == "torch.compile" and c["kernel"] in OPS
            and c["ok"] and c["correct"]]


def main(production, eltwise4, calibration="hardware/h200.calibration.yaml"):
    cases = even_compiled(production) + even_compiled(eltwise4)
    copy = float(re.search(r"^dram_bandwidth:\s*([0-9.]+)\s*GB/s", open(calibration).read(), re.M).group(1)) * 1e9
    print("compiled:\n  inductor:   # fit_inductor.py")
    for kernel, key in OPS.items():
        own = [c for c in cases if c["kernel"] == kernel and c["cols"] > PERSISTENT and c["rows"] >= 4 * SMS]
        names = ", ".join(f'{c["rows"]}x{c["cols"]}' for c in own)
        rate = statistics.median(4 * c["rows"] * c["cols"] / c["measured_s"] for c in own)
        if rate >= STREAM_SHARE * copy:
            print(f"    # {key}: none, {len(own)} cases ({names}) stream at {rate / 1e12:.2f} TB/s (median), "
                  f"{rate / copy:.0%} of the copy rate: not bound by the padded walk")
            continue
        padded = line([((math.ceil(c["rows"] / SMS) - 1) * math.ceil(c["cols"] / BLOCK) * BLOCK, c["measured_s"]) for c in own])
        print(f"    {key}: {SMS / padded[0]:.4g}   # {len(own)} cases ({names}), intercept {padded[1] * 1e6:.2f} us, "
              f"{rate / 1e12:.2f} TB/s (median)")


def line(pts):
    """Least-squares (slope, intercept, rms relative residual) of t over the work w."""
    mw = statistics.fmean(w for w, _ in pts)
    mt = statistics.fmean(t for _, t in pts)
    slope = sum((w - mw) * (t - mt) for w, t in pts) / sum((w - mw) ** 2 for w, _ in pts)
    icpt = mt - slope * mw
    return slope, icpt, math.sqrt(statistics.fmean(((icpt + slope * w) / t - 1) ** 2 for w, t in pts))

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-production/kernels.json",
         sys.argv[2] if len(sys.argv) > 2 else "validation/results/h200-eltwise4/kernels.json")
