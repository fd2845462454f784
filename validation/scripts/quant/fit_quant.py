#!/usr/bin/env python3
"""Fits the weight-only GEMM parameters of the calibration's `quant:` section (docs/calibration.md)
on half of the shapes of validation/results/h200-quant and prints them.

    python3 validation/scripts/quant/fit_quant.py validation/results/h200-quant [--calibration hardware/h200.calibration.yaml]

The model (lib/src/cost/quant_gemm_cost.cpp, docs/model.md "Quantized linears"):
    t = launches x floor + sqrt(mem^2 + issue^2)
    mem   = (bytes_read / read_bw + bytes_written / write_bw) / stream_efficiency
    issue = issue_per_row_element x M x N x K x (1 + 1/group) / issue_rate
Two parameters per weight type (int4: tinygemm, int8: torch int8pack), by a grid search on the
sum of squared log errors of the fit shapes. The card's constants come from the calibration file
(read/write bandwidth, kernel floor, issue efficiency) and hardware/h200.yaml (132 SMs x 4
schedulers x 1980 MHz). L2 hits of the small rotated cases are left out here (the guard test,
tests/test_quant_accuracy.cpp, prices them as the model does).
Fit shapes: even positions of the shape list (FIT_SHAPES below); the others are held out.

Row-scaled FP8 (torch._scaled_mm, per-token x per-channel: cuBLASLt's 128x128 ovscale kernel on
Hopper; lib/src/cost/quant_gemm_cost.cpp scaled_gemm_cost), on the same fit shapes:
    t = floor + gemm_fixed + [prologue if tiles <= SMs] + max(compute, mem, padded)
    compute = ceil(K/128) x 2 x 128^3 / (cta_mma_efficiency x datasheet fp8 / SMs)   tiles <= SMs
            = ceil(tiles / SMs) x 2 x 128 x 128 x K / (calibrated fp8 peak / SMs)     otherwise
    mem     = (bytes_read / read_bw + bytes_written / write_bw) / stream_efficiency
    padded  = tiles x ceil(K/128) x (128 - rows) / 128 x padded_row_step              rows < 128
Four parameters (cta_mma_efficiency, stream_efficiency, padded_row_step, prologue) by a
Nelder-Mead search on the same loss from two starts; the K and N sweeps of h200-quant2 (if
present beside the results folder) are reported as a further held-out set.

INT8 torch._int_mm (h200-quant2's `_int_mm` cases: CUTLASS sm80 mma.sync kernels on Hopper;
scaled_gemm_cost's mma_sync_int8_cost), on the same fit shapes, rows as padded (m_padded):
    t = floor + gemm_fixed + min over tiles (64x64, 128x64, 128x128, 128x256) of
        waves x (pass_latency + ceil(K/128) x (step + 2 x tm x tn x 128 / (share x datasheet int8 / SMs)))
Two parameters (step, share) by a grid search on the same loss; the other six shapes held out.
"""
import argparse
import json
import math
import os
import re
import statistics

FIT_SHAPES = {("llama3-8b", "qkv"), ("llama3-8b", "down"), ("qwen2.5-7b", "o"), ("qwen2.5-7b", "gateup"),
              ("llama3-70b", "qkv"), ("llama3-70b", "down")}


def calib_value(text, key, scale):
    m = re.search(rf"^{key}:\s*([0-9.eE+-]+)", text, re.M)
    return float(m.group(1)) * scale


def load(d):
    cases = []
    for f in sorted(os.listdir(d)):
        if f.startswith("quant-") and f.endswith(".json"):
            cases += json.load(open(os.path.join(d, f)))["cases"]
    return [c for c in cases if c.get("ok") and c.get("correct")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--calibration", default="hardware/h200.calibration.yaml")
    a = ap.parse_args()
    cal = open(a.calibration).read()
    read_bw = calib_value(cal, "read_bandwidth", 1e9)
    write_bw = calib_value(cal, "write_bandwidth", 1e9)
    floor = calib_value(cal, "kernel_floor", 1e-6)
    issue_rate = 132 * 4 * 1.98e9 * calib_value(cal, "issue_efficiency", 1)
    cases = load(a.results)
    for dtype in ("int4", "int8"):
        pts = []
        for c in cases:
            if c["kernel"] != "gemm_wonly" or c["dtype"] != dtype:
                continue
            m, n, k = c["m"], c["n"], c["k"]
            g = c["group_size"] or k
            launches = 4 if dtype == "int8" else 1
            rd = m * k * 2 + c["weight_bytes"]
            mem1 = rd / read_bw + m * n * 2 / write_bw
            work = m * n * k * (1 + 1 / g) / issue_rate
            pts.append(((c["model"], c["shape"]) in FIT_SHAPES, mem1, work, launches * floor, c["measured_s"]))

        def loss(eff, kk, sel):
            return sum(math.log((fl + math.hypot(m1 / eff, kk * w)) / t) ** 2 for f, m1, w, fl, t in pts if f == sel)
        best = None
        for i in range(1, 200):
            eff = i / 200
            # the issue parameter on a log grid around the large-M slope
            for j in range(0, 400):
                kk = 10 ** (-3 + j / 100)
                v = loss(eff, kk, True)
                if best is None or v < best[0]:
                    best = (v, eff, kk)
        _, eff, kk = best
        errs = [abs((fl + math.hypot(m1 / eff, kk * w)) / t - 1) for f, m1, w, fl, t in pts if not f]
        errs.sort()
        print(f"{dtype}: stream_efficiency {eff:.3f} issue_per_row_element {kk:.4g}  held-out n={len(errs)} "
              f"median {100 * statistics.median(errs):.1f}% p90 {100 * errs[int(0.9 * (len(errs) - 1))]:.1f}%")
    fit_row(a.results, cal)
    fit_int8(a.results, cal)


def fit_row(results, cal):
    """The row-scaled FP8 kernel's four keys (the calibration's quant: fp8_row_cta_mma_efficiency, _stream_efficiency,
    _padded_row_step, _prologue)."""
    read_bw = calib_value(cal, "read_bandwidth", 1e9)
    write_bw = calib_value(cal, "write_bandwidth", 1e9)
    fixed = calib_value(cal, "kernel_floor", 1e-6) + calib_value(cal, "gemm_fixed", 1e-6)
    m8 = re.search(r"^  fp8:\s*([0-9.eE+-]+)", cal, re.M)
    peak, sheet, sms = float(m8.group(1)) * 1e12, 1978.9e12, 132  # hardware/h200.yaml fp8 dense
    rows = [c for c in load(results) if c["kernel"] == "gemm_scaled" and c["scaling"] == "row"]
    sweep_file = os.path.join(os.path.dirname(results.rstrip("/")), "h200-quant2", "quant2.json")
    sweep = []
    if os.path.exists(sweep_file):
        sweep = [c for c in json.load(open(sweep_file))["cases"]
                 if c.get("model") == "sweep" and c["scaling"] == "row" and c.get("ok") and c.get("correct")]

    def pred(c, e1, e2, step, prologue):
        mp, n, k = c["m_padded"], c["n"], c["k"]
        tiles = -(-mp // 128) * -(-n // 128)
        one_wave = tiles <= sms
        comp = (2 * 128 * 128 * k / (e1 * sheet / sms) if one_wave
                else -(-tiles // sms) * 2 * 128 * 128 * k / (peak / sms))
        rd = mp * k + 4 * mp + n * k + 4 * n
        padded = tiles * -(-k // 128) * (128 - mp) / 128 * step if mp < 128 else 0.0
        return fixed + (prologue if one_wave else 0.0) + max(comp, (rd / read_bw + 2 * mp * n / write_bw) / e2, padded)

    def is_fit(c):
        return (c["model"], c["shape"]) in FIT_SHAPES

    def loss(p):
        if min(p) <= 0 or p[0] > 1.2 or p[1] > 1:
            return float("inf")
        return sum(math.log(pred(c, *p) / c["measured_s"]) ** 2 for c in rows if is_fit(c))
    best = min((nelder_mead(loss, start) for start in ([0.9, 0.66, 9e-9, 2.5e-6], [0.9, 0.55, 7e-9, 2.5e-6])),
               key=lambda r: r[1])
    params = best[0]
    e1, e2, step, prologue = params

    def report(name, cs):
        e = sorted(abs(pred(c, *params) / c["measured_s"] - 1) for c in cs)
        if e:
            print(f"  {name}: n={len(e)} median {100 * statistics.median(e):.1f}% p90 {100 * e[int(0.9 * (len(e) - 1))]:.1f}%")
    print(f"fp8 row: cta_mma_efficiency {e1:.3f} stream_efficiency {e2:.3f} padded_row_step {step * 1e6:.5f} us "
          f"prologue {prologue * 1e6:.2f} us (L2 hits left out; loss {best[1]:.3f})")
    report("fit shapes", [c for c in rows if is_fit(c)])
    report("held-out shapes", [c for c in rows if not is_fit(c)])
    report("h200-quant2 K/N sweeps", sweep)


def nelder_mead(f, x0, iters=2000):
    """(x, f(x)) at a local minimum of f from x0 (Nelder and Mead 1965; reflection 1, expansion 2,
    contraction and shrink 1/2): no SciPy on the machines this runs on."""
    n = len(x0)
    simplex = [list(x0)] + [[v * (1.2 if j == i else 1) for j, v in enumerate(x0)] for i in range(n)]
    vals = [f(x) for x in simplex]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        simplex, vals = [simplex[i] for i in order], [vals[i] for i in order]
        cen = [sum(x[j] for x in simplex[:-1]) / n for j in range(n)]
        refl = [2 * cen[j] - simplex[-1][j] for j in range(n)]
        fr = f(refl)
        if fr < vals[0]:
            exp = [3 * cen[j] - 2 * simplex[-1][j] for j in range(n)]
            fe = f(exp)
            simplex[-1], vals[-1] = (exp, fe) if fe < fr else (refl, fr)
        elif fr < vals[-2]:
            simplex[-1], vals[-1] = refl, fr
        else:
            con = [(cen[j] + simplex[-1][j]) / 2 for j in range(n)]
            fc = f(con)
            if fc < vals[-1]:
                simplex[-1], vals[-1] = con, fc
            else:
                simplex = [simplex[0]] + [[(simplex[0][j] + x[j]) / 2 for j in range(n)] for x in simplex[1:]]
                vals = [vals[0]] + [f(x) for x in simplex[1:]]
    i = min(range(n + 1), key=lambda i: vals[i])
    return simplex[i], vals[i]


def fit_int8(results, cal):
    """torch._int_mm's sm80 kernel: the calibration's int8_mma_sync_step and int8_mma_sync_share."""
    q2 = os.path.join(os.path.dirname(results.rstrip("/")), "h200-quant2", "quant2.json")
    if not os.path.exists(q2):
        return
    fixed = calib_value(cal, "kernel_floor", 1e-6) + calib_value(cal, "gemm_fixed", 1e-6)
    pass_latency = calib_value(cal, "pass_latency", 1e-6)
    sheet, sms = 1978.9e12, 132  # hardware/h200.yaml int8 dense (TOP/s), SMs
    cases = [c for c in json.load(open(q2))["cases"]
             if c.get("dtype") == "int8" and c.get("scaling") == "none" and c.get("ok") and c.get("correct")]
    tiles = ((64, 64), (128, 64), (128, 128), (128, 256))

    def pred(c, step, share):
        mp, n, k = c["m_padded"], c["n"], c["k"]
        best = None
        for tm, tn in tiles:
            waves = -(-(-(-mp // tm) * -(-n // tn)) // sms)
            t = waves * (pass_latency + -(-k // 128) * (step + 2 * tm * tn * 128 / (share * sheet / sms)))
            best = t if best is None else min(best, t)
        return fixed + best

    def is_fit(c):
        return (c["model"], c["shape"]) in FIT_SHAPES
    best = None
    for i in range(0, 61):
        for j in range(20, 101):
            step, share = i * 0.005e-6, j / 100
            v = sum(math.log(pred(c, step, share) / c["measured_s"]) ** 2 for c in cases if is_fit(c))
            if best is None or v < best[0]:
                best = (v, step, share)
    _, step, share = best
    print(f"int8 _int_mm (sm80 mma.sync): int8_mma_sync_step {step * 1e6:.3f} us int8_mma_sync_share {share:.2f}")
    for name, sel in (("fit shapes", True), ("held-out shapes", False)):
        e = sorted(abs(pred(c, step, share) / c["measured_s"] - 1) for c in cases if is_fit(c) == sel)
        print(f"  {name}: n={len(e)} median {100 * statistics.median(e):.1f}% p90 {100 * e[int(0.9 * (len(e) - 1))]:.1f}%")


if __name__ == "__main__":
    main()
