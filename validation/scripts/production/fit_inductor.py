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
rate = SMs / median((t - t_min) / (ceil(rows / SMs) x padded cols)), t_min the op's smallest fit
call (its floor). `perfmodel accuracy` recomputes every error with the C++ model.
"""
import json
import math
import statistics
import sys

SMS, BLOCK, PERSISTENT = 132, 2048, 1024
OPS = {"rmsnorm": "rmsnorm_elements_per_s", "layernorm": "layernorm_elements_per_s",
       "softmax_fused": "softmax_elements_per_s"}


def even_compiled(path):
    return [c for i, c in enumerate(json.load(open(path))["cases"])
            if i % 2 == 0 and c.get("implementation") == "torch.compile" and c["kernel"] in OPS
            and c["ok"] and c["correct"]]


def main(production, eltwise4):
    cases = even_compiled(production) + even_compiled(eltwise4)
    print("compiled:\n  inductor:   # fit_inductor.py")
    for kernel, key in OPS.items():
        own = [c for c in cases if c["kernel"] == kernel]
        pts = [((math.ceil(c["rows"] / SMS) - 1) * math.ceil(c["cols"] / BLOCK) * BLOCK, c["measured_s"], f'{c["rows"]}x{c["cols"]}')
               for c in own if c["cols"] > PERSISTENT and c["rows"] >= 4 * SMS]
        mw = statistics.fmean(w for w, _, _ in pts)
        mt = statistics.fmean(t for _, t, _ in pts)
        slope = sum((w - mw) * (t - mt) for w, t, _ in pts) / sum((w - mw) ** 2 for w, _, _ in pts)
        print(f"    {key}: {SMS / slope:.4g}   # {len(pts)} cases ({', '.join(n for _, _, n in pts)}), "
              f"intercept {(mt - slope * mw) * 1e6:.2f} us")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-production/kernels.json",
         sys.argv[2] if len(sys.argv) > 2 else "validation/results/h200-eltwise4/kernels.json")
