#!/usr/bin/env python3
"""Fits the compiled profile's `inductor:` rates (Inductor's looped row reductions; stream_cost.cpp,
inductor_issue_s; profile_calibration.hpp, InductorKernels).

Usage: python3 validation/scripts/production/fit_inductor.py [kernels.json ...] (default: h200-production, h200-eltwise4, h200-eltwise6)

What Inductor generates (validation/results/h200-eltwise4/inductor_code.json, PyTorch 2.11): a row of
more than 1024 columns is a looped reduction (triton_red_*, ReductionHint.INNER: XBLOCK 1, R0_BLOCK
2048, 16 warps), walking the row twice in 2048-column blocks, the last one masked but issued in
full. Its per-element work (F.layer_norm's Welford update with a division per element,
torch.softmax's online max/sum with two exps, then an exp and a divide) is issue-bound on the SM:
an SM holds ceil(rows / SMs) rows of the padded width, the first one's issue hidden under its own
round trips, each further one queued behind.

Its walk (branch eltwise6): every candidate runs with num_stages 1 (inductor_code.json), so each
2048-column block's loads wait on the block before. A row at one row per SM or fewer takes
looped_row (one fixed chain for all ops) + blocks x <op>_block (each block's dependent time), the
floor (kernel_floor) before it and the DRAM stream of all rows' bytes after it (each block's loads
of all rows in flight cross DRAM together: read_bandwidth, write_bandwidth): least squares over the fit set's looped cases with 2 to SMs rows
(one kernel a call; Inductor splits 16 x 16384 into 3-5 kernels), a shared intercept and a slope
per op. Each further row per SM queues behind on the SM's issue (or the stream, whichever is longer): the
rate is then the least-squares slope through the origin of t - floor - walk over (ceil(rows / SMs) - 1) x padded cols, over the fit
set's looped cases with at least 4 rows per SM (as before).

Where it goes (branch eltwise6): its output is the `inductor:` block of the opt-in calibration
validation/results/h200-eltwise6/h200.calibration.walk.yaml. hardware/h200.calibration.yaml keeps
branch eltwise5's block (the rates fitted on the even cases of h200-production and h200-eltwise4
with no walk), because the walk moves three guards of tests/test_profile_accuracy.cpp out
(docs/accuracy-notes.md, "The looped reduction's walk").

Fit set, stated: the EVEN case indices of validation/results/h200-production, of
validation/results/h200-eltwise4 and of validation/results/h200-eltwise6 (their torch.compile
cases). Held out: their odd indices, all of h200-eltwise3 and h200-eltwise5.
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
L2_DRAM_FED = 100e6  # harness.py rotates >= 2 x L2 (126 MB) unless 1000 sets are less: those run from L2
OPS = {"rmsnorm": "rmsnorm_elements_per_s", "layernorm": "layernorm_elements_per_s",
       "softmax_fused": "softmax_elements_per_s"}


def even_compiled(path):
    return [c for i, c in enumerate(json.load(open(path))["cases"])
            if i % 2 == 0 and c.get("implementation") == "torch.compile" and c["kernel"] in OPS
            and c["ok"] and c["correct"] and c["cols"] > PERSISTENT and (c.get("kernels_per_launch") or 1) == 1]


def blocks(c):
    return math.ceil(c["cols"] / BLOCK)


def main(paths, calibration="hardware/h200.calibration.yaml"):
    cases = [c for p in paths for c in even_compiled(p)]
    cal = open(calibration).read()
    copy = float(re.search(r"^dram_bandwidth:\s*([0-9.]+)\s*GB/s", cal, re.M).group(1)) * 1e9
    floor = float(re.search(r"^kernel_floor:\s*([0-9.]+)\s*us", cal, re.M).group(1)) * 1e-6
    rd, wr = (float(re.search(rf"^{k}:\s*([0-9.]+)\s*GB/s", cal, re.M).group(1)) * 1e9
              for k in ("read_bandwidth", "write_bandwidth"))

    def stream(c):  # stream_memory_s: the reads (row, weights) and the written row at the card's rates
        written = 2 * c["rows"] * c["cols"]
        return (c["bytes"] - written) / rd + written / wr

    print("compiled:\n  inductor:   # fit_inductor.py")
    # An op whose many-row fit cases stream gets neither a rate nor a walk: the backend's sweeps
    # price it (rms_norm, branch eltwise5).
    walked = []
    for kernel, key in OPS.items():
        own = [c for c in cases if c["kernel"] == kernel and c["rows"] >= 4 * SMS]
        rate = statistics.median(4 * c["rows"] * c["cols"] / c["measured_s"] for c in own)
        if rate >= STREAM_SHARE * copy:
            names = ", ".join(f'{c["rows"]}x{c["cols"]}' for c in own)
            print(f"    # {key}: none, {len(own)} cases ({names}) "
                  f"stream at {rate / 1e12:.2f} TB/s (median), {rate / copy:.0%} of the copy rate: no rate, no walk")
        else:
            walked.append(kernel)
    # the walk: t - floor - stream = looped_row + blocks x block[op], least squares (shared intercept)
    few = [c for c in cases if c["kernel"] in walked and c["rows"] <= SMS and c["rotated_bytes"] >= L2_DRAM_FED]
    # relative least squares: each case weighted by 1 / its time
    x = [[1.0 / c["measured_s"]] + [blocks(c) * (c["kernel"] == o) / c["measured_s"] for o in walked] for c in few]
    y = [(c["measured_s"] - floor - stream(c)) / c["measured_s"] for c in few]
    sol = solve(x, y)
    block = dict(zip(walked, sol[1:]))
    print(f"    looped_row: {sol[0] * 1e6:.3f} us   # {len(few)} cases: "
          + ", ".join(f'{c["kernel"]} {c["rows"]}x{c["cols"]}' for c in few))
    for o in walked:
        print(f"    {o.replace('_fused', '')}_block: {block[o] * 1e6:.3f} us")
    for kernel in walked:
        own = [c for c in cases if c["kernel"] == kernel and c["rows"] >= 4 * SMS]
        names = ", ".join(f'{c["rows"]}x{c["cols"]}' for c in own)
        rate = statistics.median(4 * c["rows"] * c["cols"] / c["measured_s"] for c in own)
        pts = [((math.ceil(c["rows"] / SMS) - 1) * blocks(c) * BLOCK,
                c["measured_s"] - floor - sol[0] - blocks(c) * block[kernel]) for c in own]  # the queue (> the stream)
        slope = sum(w * t for w, t in pts) / sum(w * w for w, _ in pts)
        print(f"    {OPS[kernel]}: {SMS / slope:.4g}   # {len(own)} cases ({names}), {rate / 1e12:.2f} TB/s (median)")


def solve(x, y):
    """Least squares by the normal equations (Gauss-Jordan; a few unknowns)."""
    n = len(x[0])
    a = [[sum(r[i] * r[j] for r in x) for j in range(n)] + [sum(r[i] * t for r, t in zip(x, y))] for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda k: abs(a[k][i]))
        a[i], a[p] = a[p], a[i]
        for k in range(n):
            if k != i:
                f = a[k][i] / a[i][i]
                a[k] = [u - f * v for u, v in zip(a[k], a[i])]
    return [a[i][n] / a[i][i] for i in range(n)]


if __name__ == "__main__":
    main(sys.argv[1:] or ["validation/results/h200-production/kernels.json",
                          "validation/results/h200-eltwise4/kernels.json",
                          "validation/results/h200-eltwise6/kernels.json"])
