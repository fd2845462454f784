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

The autotuner's other candidate (branch eltwise7): the whole row in one block (R0_BLOCK the power of
two at or above the columns; 16 warps, 8 elements a thread up to 4096 columns). Both candidates of a
pair in validation/results/h200-eltwise5/configs.json (each launched alone, DRAM-fed) share the floor,
the row's fixed chain and the stream, so their difference is what the whole row saves against the
two-block walk at 2049-4096 columns: whole_row_saved, the mean of the WHOLE_FIT_COLS pairs (layer_norm
and softmax 128 x 4096, h200-production's shape); held out: the 64 x 2560 pairs and all of
validation/results/h200-eltwise7/configs.json (14 pairs, with Inductor's own ranking). The walk's fit
cases of 2049-4096 columns ran the walk (their times are the walk candidate's; their kernels reused
the config tuned at another shape), so they fit the walk as measured.

Where it goes (branch eltwise6): its output is the `inductor:` block of the opt-in calibration
validation/results/h200-eltwise6/h200.calibration.walk.yaml. hardware/h200.calibration.yaml keeps
branch eltwise5's block (the rates fitted on the even cases of h200-production and h200-eltwise4
with no walk), because the walk moves three guards of tests/test_profile_accuracy.cpp out
(docs/accuracy-notes.md, "The looped reduction's walk"). Branch eltwise7: its output with
whole_row_saved is validation/results/h200-eltwise7/h200.calibration.whole.yaml, opt-in too
(docs/accuracy-notes.md, "Both autotune candidates").

Fit set, stated: the EVEN case indices of validation/results/h200-production, of
validation/results/h200-eltwise4 and of validation/results/h200-eltwise6 (their torch.compile
cases). Held out: their odd indices, all of h200-eltwise3 and h200-eltwise5.
An op whose fit cases stream their bytes (read + write) at a median of at least STREAM_SHARE of the
card's copy rate (dram_bandwidth in hardware/h200.calibration.yaml) is not issue-bound on the walk:
it streams and gets no rate (rms_norm: 3.4 TB/s of 4.0, its 12288 x 5120 with a fifth of the walk
masked at the stream's time; layer_norm and softmax 1.7 and 1.5 TB/s; branch eltwise5).
Calls Inductor split into several kernels (kernels_per_launch > 1: fewer than 2 x SMs rows of more
than 8192 columns, h200-eltwise6's 16 x 16384) are left out of every fit: stream_cost.cpp prices
their kernels one by one with what is fitted here (branch eltwise8, inductor_split_cost).
`perfmodel accuracy` recomputes every error with the C++ model.
At most 2048 columns (one block a sweep, XBLOCK 2) stream_cost.cpp adds two terms with no parameter
(branch eltwise11: the first resident wave's lockstep, softmax's lone CTA's exposed issue); none of
the fit cases below has so few columns at 4 or more rows an SM, so the rates do not move.
Branch eltwise12: a layer_norm whose rows are a multiple of 4096 (no row mask: Inductor's
_has_constant_mask) and whose columns are whole 2048-column blocks issues fewer instructions a row
(Nsight Compute, validation/results/h200-eltwise12/ncu.csv; stream_cost.cpp scales its issue by
lib/src/cost/inductor_masks.cpp's weight). The rate is the masked kernel's: such calls are left out
of its fit (none of the default fit cases is one, so the rate does not move).
Branch eltwise13: the row-mask-only class (rows not a multiple of 4096, whole blocks, up to 7 of
them) gets its own weight (validation/results/h200-eltwise13/ncu.csv). Its fit case 528 x 8192
(weight 0.97) stays in the rate's fit unweighted: the rate was not refitted.
Branch eltwise14: its opt-in (validation/results/h200-eltwise14/h200.calibration.walk4096.yaml) takes
the walk's three times printed here with `walk_from_cols: 4097` (the walk priced past two blocks only)
beside the default's rates, which up to 4096 columns keep pricing the default's sweeps; nothing is
refitted (the walk's fit cases of 2049-4096 columns ran the walk, so they still fit it as measured).
Branch eltdef: every walk fit case here (at most 132 rows) keeps Inductor's row mask, so the block
times are the row-masked kernel's; stream_cost.cpp shortens the walk of a layer_norm without it (rows
a multiple of 4096, whole blocks) by the issue the mask adds (inductor_masks.cpp). Nothing refitted.
Branch rowops17: a layer_norm with both masks past 7 blocks issues 3971 + 2448 warp instructions a row a
block (validation/results/h200-rowops17/ncu.csv), weighted in inductor_masks.cpp and added to its walk;
no fit case here has more than 4 blocks with both masks, so nothing here moves. Nothing refitted.
Branch inductorrow: layer_norm with both masks at 1-3 blocks and softmax at 1-5 blocks issue a fixed part a
row above the reference kernel's count (validation/results/h200-rowops17/ncu.csv,
validation/results/h200-inductorrow/ncu.csv); inductor_masks.cpp weights their issue by it. The default's
softmax rate refitted with the weights on its fit cases comes out 4.627e11 (0.4 % from 4.607e11) and
layer_norm's fit case 1000 x 3072 (weight 1.48) stays in its rate's fit unweighted: nothing refitted.
"""
import json
import math
import re
import statistics
import sys

SMS, BLOCK, PERSISTENT = 132, 2048, 1024
STREAM_SHARE = 0.75
L2_DRAM_FED = 100e6  # harness.py rotates >= 2 x L2 (126 MB) unless 1000 sets are less: those run from L2
WHOLE_ROW_COLS = 4096  # the whole-row candidate priced: one 16-warp block of 8 elements a thread
CONFIGS = "validation/results/h200-eltwise5/configs.json"
CONFIGS7 = "validation/results/h200-eltwise7/configs.json"  # held out: the same pairs' kind, 14 more
WHOLE_FIT_COLS = (4096,)  # configs.json's pairs the whole row is fitted on (h200-production's 128 x 4096); the rest held out
OPS = {"rmsnorm": "rmsnorm_elements_per_s", "layernorm": "layernorm_elements_per_s",
       "softmax_fused": "softmax_elements_per_s"}


def even_compiled(path):
    return [c for i, c in enumerate(json.load(open(path))["cases"])
            if i % 2 == 0 and c.get("implementation") == "torch.compile" and c["kernel"] in OPS
            and c["ok"] and c["correct"] and c["cols"] > PERSISTENT and (c.get("kernels_per_launch") or 1) == 1]


def unmasked_layernorm(c):
    """No row mask and whole blocks (inductor_masks.cpp): not the kernel the rate prices."""
    return c["kernel"] == "layernorm" and c["cols"] > BLOCK and c["cols"] % BLOCK == 0 and c["rows"] % 4096 == 0


def blocks(c):
    return math.ceil(c["cols"] / BLOCK)


def rows_per_sm(c):
    """Rows an SM holds (stream_cost.cpp, inductor_issue_s): Inductor's contiguous reduction config
    is XBLOCK 2 while the row's size hint is at most 2048 columns, 1 beyond (triton_heuristics.py,
    _reduction_configs), so the CTAs hold their rows in pairs there (branch eltwise9)."""
    xblock = 2 if c["cols"] <= BLOCK else 1
    return math.ceil(math.ceil(c["rows"] / xblock) / SMS) * xblock


def candidate_pairs(path, rows_max=SMS):
    """configs.json's looped reductions of 2049-4096 columns at most rows_max rows, DRAM-fed, with
    both candidates timed alone: (kernel, rows, cols, whole-row time, 2048-column time)."""
    out = []
    for r in json.load(open(path))["reductions"]:
        if r["kernel"] == "rmsnorm" or r["persistent"] or not BLOCK < r["cols"] <= WHOLE_ROW_COLS or r["rows"] > rows_max:
            continue
        t = {c["config"]["R0_BLOCK"]: c for c in r["candidates"] if c["correct"]}
        whole = t.get(1 << (r["cols"] - 1).bit_length())
        if whole and BLOCK in t and whole["rotated_bytes"] >= L2_DRAM_FED:
            out.append((r["kernel"], r["rows"], r["cols"], whole["measured_s"], t[BLOCK]["measured_s"]))
    return out


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
    # The whole-row candidate (branch eltwise7): both candidates of a configs.json pair share the
    # floor, the row's fixed chain and the stream, so whole - walk = (whole_row_blocks - 2) x block[op].
    # It and the walk depend on each other (the walk's fit cases of 2049-4096 columns ran the faster
    # candidate): alternate until they settle.
    pairs = [p for p in candidate_pairs(CONFIGS) if p[0] in walked]
    fit_pairs = [p for p in pairs if p[2] in WHOLE_FIT_COLS]
    saved = statistics.mean(t2 - tw for *_, tw, t2 in fit_pairs)
    # relative least squares: each case weighted by 1 / its time. The fit cases of 2049-4096 columns
    # (layer_norm 128 x 4096 and 132 x 2049, softmax 96 x 3072) ran the walk: their compiled kernel
    # reused the config tuned at the shape that first compiled it (dynamic shapes: one best_config
    # file for several shapes, h200-eltwise4/inductor_code.json), and their times are the walk
    # candidate's alone (h200-eltwise7/configs.json), so they fit the walk as measured.
    x = [[1.0 / c["measured_s"]] + [blocks(c) * (c["kernel"] == o) / c["measured_s"] for o in walked] for c in few]
    y = [(c["measured_s"] - floor - stream(c)) / c["measured_s"] for c in few]
    sol = solve(x, y)
    block = dict(zip(walked, sol[1:]))
    print(f"    looped_row: {sol[0] * 1e6:.3f} us   # {len(few)} cases: "
          + ", ".join(f'{c["kernel"]} {c["rows"]}x{c["cols"]}' for c in few))
    for o in walked:
        print(f"    {o.replace('_fused', '')}_block: {block[o] * 1e6:.3f} us")
    print(f"    whole_row_saved: {saved * 1e6:.3f} us   # configs.json pairs (2048-column walk - whole row, alone) fitted: "
          + ", ".join(f"{k} {r}x{c} {(t2 - tw) * 1e6:.2f} us" for k, r, c, tw, t2 in fit_pairs) + "; held out: "
          + ", ".join(f"{k} {r}x{c} {(t2 - tw) * 1e6:.2f} us" for k, r, c, tw, t2 in pairs if (k, r, c, tw, t2) not in fit_pairs))
    for k, r, c, tw, t2 in candidate_pairs(CONFIGS7):
        print(f"    #   held out (h200-eltwise7) {k} {r}x{c}: walk - whole {(t2 - tw) * 1e6:+.2f} us alone, {saved * 1e6:.2f} priced")
    for kernel in walked:
        own = [c for c in cases if c["kernel"] == kernel and c["rows"] >= 4 * SMS and not unmasked_layernorm(c)]
        names = ", ".join(f'{c["rows"]}x{c["cols"]}' for c in own)
        rate = statistics.median(4 * c["rows"] * c["cols"] / c["measured_s"] for c in own)
        pts = [((rows_per_sm(c) - 1) * blocks(c) * BLOCK,
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
