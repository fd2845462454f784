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

torch int8pack W8A16 since quant8 (quant_gemm_cost.cpp int8pack_cost): ATen's
weight_int8pack_mm_kernel runs one thread per output in 16 x 16 blocks (16 output channels x 16
rows of x), each thread walking all of K alone:
    blocks = ceil(N/16) x ceil(M/16); warps = ceil(N/16) x (8 per full 16 rows + ceil(rest/2))
    per_sm = ceil(blocks / SMs)   (the busiest SM)   rounds = ceil(per_sm / 8)   (8 blocks of 256 threads resident)
    t = 4 x floor + K x hypot(rounds x thread_step, per_sm x warps/blocks x warp_step) / SM clock
Two parameters (int8_thread_step_cycles, int8_warp_step_cycles) by Nelder-Mead on the same loss;
the int4 keys (and int8's old two, reported) by the grid search above. h200-quant8 (measured after
this fit; every case held out) is reported when it is present beside the results folder.

Row-scaled FP8 (torch._scaled_mm, per-token x per-channel: cuBLASLt's 128x128 ovscale kernel on
Hopper; lib/src/cost/quant_gemm_cost.cpp scaled_gemm_cost), on the same fit shapes:
    t = floor + gemm_fixed + [prologue if tiles <= SMs] + max(compute, mem, padded)
    compute = ceil(K/128) x 2 x 128^3 / (cta_mma_efficiency x datasheet fp8 / SMs)   tiles <= SMs
            = ceil(tiles / SMs) x 2 x 128 x 128 x K / (calibrated fp8 peak / SMs)     otherwise
    mem     = (bytes_read / read_bw + bytes_written / write_bw) / stream_efficiency
    padded  = tiles x ceil(K/128) x (128 - rows) / 128 x padded_row_step              rows < 128
Four parameters (cta_mma_efficiency, stream_efficiency, padded_row_step, prologue) by a
Nelder-Mead search on the same loss from two starts; the K and N sweeps of h200-quant2 (if
present beside the results folder) are reported as a further held-out set. Then quant9's opt-in
(validation/results/h200-quant9/h200.fp8-row-cap.calibration.yaml), five parameters, the padded
step capped and walked wave by wave on the busiest SM:
    padded  = ceil(tiles/SMs) x ceil(K/128) x min(cap, min(tiles, SMs) x (1 - rows / 256) x padded_row_step)
Then fp8cap10's form, the default since (hardware/h200.calibration.yaml; quant_gemm_cost.cpp row_fp8_by_waves):
at up to 128 rows the waves of w CTAs (one an SM) one after another, each
    prologue + max(ceil(K/128) x MMA step, ceil(K/128) x min(cap, w x (1 - rows/256) x padded_row_step),
                   w / tiles x bytes / (read_bw x stream_efficiency) + bytes / (tiles x sm_stream))
past 128 rows (fp8row11, row_tiles_time) rounds of <= 132 CTAs, the prologue once, each
    max(K loop or a partial row tile's padded step, share x bytes / read + 128 K / sm_stream, w x 256 K / L2 tile rate);
stream_efficiency held at 1 (the copy's rate), five fitted (cta_mma_efficiency, padded_row_step,
prologue, cap, sm_stream: the calibration keys fp8_row_cta_mma_efficiency, _padded_row_step, _prologue, _padded_step_cap, _sm_stream). h200-fp8cap10's
probe (measured after quant9's fit, none of it fitted) is reported beside the sweeps.

torch int8pack past the first resident round at 1-15 rows (quant9, h200-quant9's block trace):
the first round, then the busiest SM's late company n = min(late, hold, max(first refill,
LATE_SKEW x late / SMs)) as one more round (int8pack_pred).

INT8 torch._int_mm (h200-quant2's `_int_mm` cases: CUTLASS sm80 mma.sync kernels on Hopper;
scaled_gemm_cost's mma_sync_int8_cost), on the same fit shapes, rows as padded (m_padded):
    tile = int8_tile(M, N, K)   (cuBLAS's pick as a rule: 64x64 / 128x64 / 128x128 / 128x256)
    mma  = 2 x tm x tn x 128 / (datasheet int8 / SMs)
    w    = mma + (real rows + tn) x 128 / fill_rate         shared by the CTAs resident on an SM
    lone = mma + (tm + tn) x 128 / fill_rate + latency / (stages - 1)     a CTA alone
    t = floor + gemm_fixed + max(compute, mem / stream_efficiency)
    compute = max(per_sm x steps x w, rounds x steps x lone) + rounds x pass_latency
      per_sm = ceil(CTAs / SMs), rounds = ceil(per_sm / CTAs resident by shared memory)
Three parameters (fill_rate, latency, stream_efficiency) by Nelder-Mead on the same loss; the other
six shapes held out. With --int8-actual the kernel each case ran (its name) replaces the rule:
the rule's own share of the error.

Block-scaled FP8 (h200-quant2's `block` cases: cuBLASLt's Ablk128_Bvec128 128x128 kernel), on
the same fit shapes: the row-scaled form without the padded-row term, K split where cuBLASLt
splits it (block_fp8_split, its count from the kernel grids of h200-quant5 and h200-quant6) plus
the splitKreduce kernel; three parameters
(fp8_block_cta_mma_efficiency, _stream_efficiency, _prologue).
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
    ap.add_argument("--int8-actual", action="store_true", help="also fit INT8 with each case's profiled kernel")
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
    fit_int8pack(a.results, cal)
    fit_row(a.results, cal)
    fit_row(a.results, cal, capped=True)  # quant9's opt-in: validation/results/h200-quant9/h200.fp8-row-cap.calibration.yaml
    fit_row(a.results, cal, capped=True, waves=True)  # fp8cap10: the default (hardware/h200.calibration.yaml)
    fit_row_tiles(a.results, cal)  # fp8row11: past 128 rows (quant_gemm_cost.cpp row_fp8_row_tiles)
    fit_padded_walkers(a.results, cal)  # fp8row12: a partial last row tile's walkers (row_fp8_row_tiles)
    fit_int8(a.results, cal)
    if a.int8_actual:
        fit_int8(a.results, cal, actual=True)
    fit_block(a.results, cal)


# quant_gemm_cost.cpp kLateSkew: the busiest SM's share of the blocks past the first round over the mean,
# read off h200-quant9's trace (M = 1, N = 28672: 13 of 736 blocks on 132 SMs)
LATE_SKEW = 2.33


def int8pack_pred(c, thread_step, warp_step, floor, sms=132, clock=1.98e9, resident=8):
    """quant_gemm_cost.cpp int8pack_cost: the busiest SM's K loop of ATen's thread-per-output kernel."""
    m, n, k = c["m"], c["n"], c["k"]
    col_blocks = -(-n // 16)
    blocks = col_blocks * -(-m // 16)
    warps = col_blocks * (8 * (m // 16) + -(-(m % 16) // 2))
    per_sm = -(-blocks // sms)
    rounds = -(-per_sm // resident)
    step = math.hypot(rounds * thread_step, per_sm * warps / blocks * warp_step)
    live, pending, slots = warps / blocks, blocks - resident * sms, 64
    if m < 16 and pending > 0 and slots - (resident - 1) * live >= 16:
        # quant9: the first round, then the busiest SM's late company (quant_gemm_cost.cpp late_company)
        hold = min(32, (slots - 8) // live + 1)
        full = pending // (hold * sms)
        rest = pending - full * hold * sms
        first = (slots - (resident - 1) * live) // 8
        n = min(rest, hold, max(first, math.ceil(LATE_SKEW * rest / sms))) if rest > 0 else 0
        step = (math.hypot(thread_step, resident * live * warp_step) + full * math.hypot(thread_step, hold * live * warp_step)
                + (math.hypot(thread_step, n * live * warp_step) if n > 0 else 0.0))
    return 4 * floor + k * step / clock


def fit_int8pack(results, cal):
    """torch int8pack's two keys (the calibration's quant: int8_thread_step_cycles, int8_warp_step_cycles)."""
    floor = calib_value(cal, "kernel_floor", 1e-6)
    cases = [c for c in load(results) if c["kernel"] == "gemm_wonly" and c["dtype"] == "int8"]

    def is_fit(c):
        return (c["model"], c["shape"]) in FIT_SHAPES

    def loss(p):
        if min(p) <= 0:
            return float("inf")
        return sum(math.log(int8pack_pred(c, *p, floor) / c["measured_s"]) ** 2 for c in cases if is_fit(c))
    best = min((nelder_mead(loss, x0) for x0 in ([80.0, 18.0], [40.0, 30.0])), key=lambda r: r[1])
    p = best[0]
    print(f"int8pack (thread per output): int8_thread_step_cycles {p[0]:.1f} int8_warp_step_cycles {p[1]:.2f} "
          f"(L2 hits left out; loss {best[1]:.3f})")
    q8 = os.path.join(os.path.dirname(results.rstrip("/")), "h200-quant8", "quant8.json")
    sets = [("fit shapes", [c for c in cases if is_fit(c)]), ("held-out shapes", [c for c in cases if not is_fit(c)])]
    if os.path.exists(q8):
        sets.append(("h200-quant8", [c for c in json.load(open(q8))["cases"] if c.get("ok") and c.get("correct")]))
    for name, cs in sets:
        e = sorted(abs(int8pack_pred(c, *p, floor) / c["measured_s"] - 1) for c in cs)
        if e:
            print(f"  {name}: n={len(e)} median {100 * statistics.median(e):.1f}% p90 {100 * e[int(0.9 * (len(e) - 1))]:.1f}%")


def fit_row(results, cal, capped=False, waves=False):
    """The row-scaled FP8 kernel's four keys (the calibration's quant: fp8_row_cta_mma_efficiency, _stream_efficiency,
    _padded_row_step, _prologue), quant9's fifth (_padded_step_cap), or fp8cap10's wave-by-wave form (waves=True:
    stream_efficiency held at 1, one SM's stream rate fitted beside the other four)."""
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

    def pred(c, e1, e2, step, prologue, cap=0.0, sm_rate=0.0):
        mp, n, k = c["m_padded"], c["n"], c["k"]
        tiles = -(-mp // 128) * -(-n // 128)
        if sm_rate > 0:  # fp8cap10 (quant_gemm_cost.cpp row_fp8_by_waves)
            return fixed + waves_time(mp, n, k, tiles, e1, e2, step, prologue, cap, sm_rate)
        one_wave = tiles <= sms
        comp = (2 * 128 * 128 * k / (e1 * sheet / sms) if one_wave
                else -(-tiles // sms) * 2 * 128 * 128 * k / (peak / sms))
        rd = mp * k + 4 * mp + n * k + 4 * n
        # quant9: a CTA's padded K step grows with the CTAs walking at once, up to `cap`; the
        # busiest SM walks ceil(tiles / SMs) of them one after another
        waves, walking = -(-tiles // sms), min(tiles, sms)
        if mp >= 128:
            padded = 0.0
        elif cap <= 0:  # the default: every tile's padded steps on one serial resource
            padded = tiles * -(-k // 128) * (128 - mp) / 128 * step
        else:  # quant9's opt-in (fp8_row_padded_step_cap)
            padded = waves * -(-k // 128) * min(cap, walking * (1 - mp / 256) * step)
        return fixed + (prologue if one_wave else 0.0) + max(comp, (rd / read_bw + 2 * mp * n / write_bw) / e2, padded)

    def waves_time(mp, n, k, tiles, e1, e2, step, prologue, cap, sm_rate):
        # each wave of w CTAs: prologue + max(MMA chain, padded chain, its share of the stream at the card's
        # rate plus one SM's); waves one after another; more than 128 rows: one wave's form, the same stream
        steps = -(-k // 128)
        mma = steps * 2 * 128 ** 3 / (e1 * sheet / sms)
        nbytes = mp * k + 4 * mp + n * k + 4 * n + 2 * mp * n
        card = (nbytes - 2 * mp * n) / read_bw / e2 + 2 * mp * n / write_bw / e2
        if mp > 128:
            return row_tiles_time(mp, n, k, tiles, mma, card, step, prologue, cap, sm_rate, row_l2_tile_rate(cal),
                                  padded_full_walker(cal))
        t = 0.0
        for i in range(-(-tiles // sms)):
            w = min(sms, tiles - i * sms)
            pad = 0.0 if mp >= 128 else steps * min(cap, w * (1 - mp / 256) * step)
            t += prologue + max(mma, pad, card * w / tiles + nbytes / (tiles * sm_rate))
        return t

    def is_fit(c):
        return (c["model"], c["shape"]) in FIT_SHAPES

    def full(p):  # the parameters pred takes
        return [p[0], 1.0] + list(p[1:]) if waves else list(p)

    def loss(p):
        if min(p) <= 0 or p[0] > 1.2 or (not waves and p[1] > 1):
            return float("inf")
        return sum(math.log(pred(c, *full(p)) / c["measured_s"]) ** 2 for c in rows if is_fit(c))
    starts = ([0.9, 0.66, 9e-9, 2.5e-6], [0.9, 0.55, 7e-9, 2.5e-6])
    if capped:
        starts = ([0.9, 0.66, 9e-9, 2.5e-6, 0.7e-6], [0.9, 0.55, 7e-9, 2.5e-6, 0.6e-6], [0.97, 0.65, 9.3e-9, 3.4e-6, 0.7e-6])
    if waves:
        starts = ([0.97, 8.4e-9, 3.4e-6, 0.68e-6, 166e9], [0.96, 8.5e-9, 3.2e-6, 0.7e-6, 250e9], [0.9, 9e-9, 2.5e-6, 0.7e-6, 120e9])
    best = min((nelder_mead(loss, start) for start in starts), key=lambda r: r[1])
    params = full(best[0])
    e1, e2, step, prologue, cap, sm_rate = list(params) + ([] if capped else [0.0]) + ([] if waves else [0.0])

    def report(name, cs):
        e = sorted(abs(pred(c, *params) / c["measured_s"] - 1) for c in cs)
        if e:
            print(f"  {name}: n={len(e)} median {100 * statistics.median(e):.1f}% p90 {100 * e[int(0.9 * (len(e) - 1))]:.1f}%")
    print(f"fp8 row: cta_mma_efficiency {e1:.3f} stream_efficiency {e2:.3f} padded_row_step {step * 1e6:.5f} us "
          f"prologue {prologue * 1e6:.2f} us" + (f" padded_step_cap {cap * 1e6:.3f} us" if capped else "")
          + (" (quant9 opt-in)" if capped and not waves else "")
          + (f" one SM's stream {sm_rate / 1e9:.0f} GB/s (fp8cap10, the default)" if waves else "")
          + f" (L2 hits left out; loss {best[1]:.3f})")
    report("fit shapes", [c for c in rows if is_fit(c)])
    report("held-out shapes", [c for c in rows if not is_fit(c)])
    report("h200-quant2 K/N sweeps", sweep)
    probe = os.path.join(os.path.dirname(results.rstrip("/")), "h200-fp8cap10", "fp8cap10.json")
    if os.path.exists(probe):  # fp8cap10's probe at 64-224 CTAs, measured after quant9's fit
        report("h200-fp8cap10 probe", [dict(c, m_padded=c["m"]) for c in json.load(open(probe))["cases"]
                                        if c.get("ok") and c.get("correct")])


# fp8row12 (`fp8_row_padded_full_walker`, quant_gemm_cost.cpp row_fp8_row_tiles): a CTA of a full row tile
# walking beside a partial last row tile's CTAs counts this share of one of them at the padded rows' L2 hot
# spot; fitted by fit_padded_walkers on h200-fp8row12's o70 and n4096 rows (half its cases), the rest held out
def padded_full_walker(cal):
    m = re.search(r"^  fp8_row_padded_full_walker:\s*([0-9.eE+-]+)", cal, re.M)
    return float(m.group(1)) if m else 0.0


# fp8row11 (`fp8_row_l2_tile_rate`, quant_gemm_cost.cpp row_fp8_row_tiles): nominal A + B tile bytes the L2
# hands the SMs a second, past 128 rows; fitted by fit_row_tiles on FIT_SHAPES' cases past 128 rows
def row_l2_tile_rate(cal):
    return calib_value(cal, "  fp8_row_l2_tile_rate", 1e12)


def row_tiles_time(mp, n, k, tiles, mma, card, step, prologue, cap, sm_rate, l2_rate, full_walker, sms=132):
    """quant_gemm_cost.cpp row_fp8_row_tiles: past 128 rows, rounds of <= 132 CTAs (persistent past 132 tiles,
    the prologue once), each the longest of its K loop (or a partial last row tile's padded step, walked by
    its w / row-tiles CTAs), its share of the weight at the card's rate plus one CTA's column at one SM's,
    and w x 2 x 128 x K tile bytes at l2_rate."""
    steps, row_tiles = -(-k // 128), -(-mp // 128)
    last = mp - 128 * (row_tiles - 1)
    t = prologue
    for i in range(-(-tiles // sms)):
        w = min(sms, tiles - i * sms)
        own = mma
        if last < 128:
            padded = w / row_tiles  # fp8row12: the full tiles' CTAs count full_walker each beside them
            walking = padded + full_walker * (w - padded)
            own = max(own, steps * min(cap, walking * (1 - last / 256) * step))
        t += max(own, card * w / tiles + 128 * k / sm_rate, w * 2 * 128 * k / l2_rate)
    return t


def fit_row_tiles(results, cal):
    """fp8row11: the L2 tile rate past 128 rows, the five fp8_row keys as the calibration holds them."""
    read_bw = calib_value(cal, "read_bandwidth", 1e9)
    write_bw = calib_value(cal, "write_bandwidth", 1e9)
    fixed = calib_value(cal, "kernel_floor", 1e-6) + calib_value(cal, "gemm_fixed", 1e-6)
    e1 = calib_value(cal, "  fp8_row_cta_mma_efficiency", 1)
    step = calib_value(cal, "  fp8_row_padded_row_step", 1e-6)
    cap = calib_value(cal, "  fp8_row_padded_step_cap", 1e-6)
    sm_rate = calib_value(cal, "  fp8_row_sm_stream", 1e9)
    prologue = calib_value(cal, "  fp8_row_prologue", 1e-6)
    sheet, sms = 1978.9e12, 132
    rows = [c for c in load(results) if c["kernel"] == "gemm_scaled" and c["scaling"] == "row" and c["m_padded"] > 128]
    probe = os.path.join(os.path.dirname(results.rstrip("/")), "h200-fp8row11", "fp8row11.json")
    extra = [dict(c, m_padded=c["m"]) for c in json.load(open(probe))["cases"]
             if c.get("ok") and c.get("correct") and c["m"] > 128] if os.path.exists(probe) else []

    def pred(c, l2):
        mp, n, k = c["m_padded"], c["n"], c["k"]
        tiles = -(-mp // 128) * -(-n // 128)
        mma = -(-k // 128) * 2 * 128 ** 3 / (e1 * sheet / sms)
        nbytes = mp * k + 4 * mp + n * k + 4 * n + 2 * mp * n
        card = (nbytes - 2 * mp * n) / read_bw + 2 * mp * n / write_bw
        return fixed + row_tiles_time(mp, n, k, tiles, mma, card, step, prologue, cap, sm_rate, l2, padded_full_walker(cal))

    def is_fit(c):
        return (c["model"], c["shape"]) in FIT_SHAPES

    def loss(l2):
        return sum(math.log(pred(c, l2) / c["measured_s"]) ** 2 for c in rows if is_fit(c))
    l2 = min((i / 10 * 1e12 for i in range(60, 161)), key=loss)
    print(f"  fp8_row_l2_tile_rate: {l2 / 1e12:.1f} TB/s   # fp8row11: L2 tile rate (grid 0.1 TB/s; L2 hits left out; "
          f"loss {loss(l2):.4f}); the five fp8_row keys from the calibration")
    for name, cs in (("fit shapes", [c for c in rows if is_fit(c)]), ("held-out shapes", [c for c in rows if not is_fit(c)]),
                     ("h200-fp8row11 probe", extra)):
        e = sorted(abs(pred(c, l2) / c["measured_s"] - 1) for c in cs)
        if e:
            print(f"  {name}: n={len(e)} median {100 * statistics.median(e):.1f}% p90 {100 * e[int(0.9 * (len(e) - 1))]:.1f}%")


FR12_FIT_TAGS = ("o70", "n4096")  # fp8row12's fit half: N = 8192 and 4096 at K = 8192 (64 and 32 columns)


def fit_padded_walkers(results, cal):
    """fp8row12: the weight of a full row tile's CTA among the walkers of a partial last row tile's padded
    step (fp8_row_padded_full_walker), a grid over [0, 1] on h200-fp8row12's o70 / n4096 cases past 128 rows; held
    out: its down70 (K = 28672) and n6144 (96 CTAs), fp8row11's probe, h200-quant past 128 rows."""
    read_bw = calib_value(cal, "read_bandwidth", 1e9)
    write_bw = calib_value(cal, "write_bandwidth", 1e9)
    fixed = calib_value(cal, "kernel_floor", 1e-6) + calib_value(cal, "gemm_fixed", 1e-6)
    e1 = calib_value(cal, "  fp8_row_cta_mma_efficiency", 1)
    step = calib_value(cal, "  fp8_row_padded_row_step", 1e-6)
    cap = calib_value(cal, "  fp8_row_padded_step_cap", 1e-6)
    sm_rate = calib_value(cal, "  fp8_row_sm_stream", 1e9)
    prologue = calib_value(cal, "  fp8_row_prologue", 1e-6)
    l2 = row_l2_tile_rate(cal)
    sheet, sms = 1978.9e12, 132
    base = os.path.dirname(results.rstrip("/"))

    def probe(name, tagged):
        path = os.path.join(base, name)
        if not os.path.exists(path):
            return []
        out = []
        for c in json.load(open(path))["cases"]:
            if c.get("ok") and c.get("correct") and c.get("m_padded", c["m"]) > 128:
                c = dict(c, m_padded=c.get("m_padded", c["m"]))
                if tagged:
                    c["tag"] = c["name"].split("_sweep_")[1].rsplit("_m", 1)[0]
                out.append(c)
        return out
    fr12 = probe("h200-fp8row12/fp8row12.json", True)
    fr11 = probe("h200-fp8row11/fp8row11.json", False)
    quant = [c for c in load(results) if c["kernel"] == "gemm_scaled" and c["scaling"] == "row" and c["m_padded"] > 128]

    def pred(c, beta):
        mp, n, k = c["m_padded"], c["n"], c["k"]
        tiles = -(-mp // 128) * -(-n // 128)
        mma = -(-k // 128) * 2 * 128 ** 3 / (e1 * sheet / sms)
        nbytes = mp * k + 4 * mp + n * k + 4 * n + 2 * mp * n
        card = (nbytes - 2 * mp * n) / read_bw + 2 * mp * n / write_bw
        return fixed + row_tiles_time(mp, n, k, tiles, mma, card, step, prologue, cap, sm_rate, l2, full_walker=beta)
    fit = [c for c in fr12 if c["tag"] in FR12_FIT_TAGS]

    def loss(beta):
        return sum(math.log(pred(c, beta) / c["measured_s"]) ** 2 for c in fit)
    beta = min((i / 100 for i in range(0, 101)), key=loss)
    print(f"  fp8_row_padded_full_walker: {beta:.2f}   # fp8row12 (grid 0.01; loss {loss(beta):.4f}, "
          f"0 (fp8row11) {loss(0.0):.4f}, 1 (all CTAs) {loss(1.0):.4f}); the fp8_row keys from the calibration")
    sets = (("h200-fp8row12 fit (o70, n4096)", fit),
            ("h200-fp8row12 held out (down70, n6144)", [c for c in fr12 if c["tag"] not in FR12_FIT_TAGS]),
            ("h200-fp8row12 partial last tile, held out", [c for c in fr12 if c["tag"] not in FR12_FIT_TAGS and c["m_padded"] % 128]),
            ("h200-fp8row11 probe", fr11), ("h200-quant past 128 rows", quant))
    for name, cs in sets:
        for b, label in ((0.0, "fp8row11"), (beta, "fitted")):
            e = sorted(abs(pred(c, b) / c["measured_s"] - 1) for c in cs)
            if e:
                print(f"  {name} [{label}]: n={len(e)} median {100 * statistics.median(e):.1f}% "
                      f"p90 {100 * e[int(0.9 * (len(e) - 1))]:.1f}% max {100 * e[-1]:.1f}%")
    return beta


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


INT8_TILES = {"64x64": (64, 64, 6), "128x64": (128, 64, 3), "128x128": (128, 128, 5), "128x256": (128, 256, 3)}


def int8_tile(mp, n, k, sms=132):
    """quant_gemm_cost.cpp int8_heuristic_tile: cuBLAS's pick as a rule."""
    def ctas(t):
        return -(-mp // t[0]) * -(-n // t[1])
    if ctas(INT8_TILES["64x64"]) <= 1.25 * sms:
        return INT8_TILES["64x64"]
    if k < 4096:
        return INT8_TILES["128x64"]
    if mp >= 128 and ctas(INT8_TILES["128x256"]) > 1.5 * sms:
        return INT8_TILES["128x256"]
    return INT8_TILES["128x128"] if k >= 8192 else INT8_TILES["128x64"]


def actual_int8_tile(c):
    m = re.search(r"_s8_(\d+)x(\d+)_128x(\d+)_", c["kernel_names"][0])
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def fit_int8(results, cal, actual=False):
    """torch._int_mm's sm80 kernel: the calibration's int8_mma_sync_fill_rate, _latency, _stream_efficiency."""
    q2 = os.path.join(os.path.dirname(results.rstrip("/")), "h200-quant2", "quant2.json")
    if not os.path.exists(q2):
        return
    fixed = calib_value(cal, "kernel_floor", 1e-6) + calib_value(cal, "gemm_fixed", 1e-6)
    pass_latency = calib_value(cal, "pass_latency", 1e-6)
    read_bw = calib_value(cal, "read_bandwidth", 1e9)
    write_bw = calib_value(cal, "write_bandwidth", 1e9)
    sheet, sms, smem = 1978.9e12, 132, 228 * 1024  # hardware/h200.yaml int8 dense (TOP/s), SMs, shared memory
    cases = [c for c in json.load(open(q2))["cases"]
             if c.get("dtype") == "int8" and c.get("scaling") == "none" and c.get("ok") and c.get("correct")]

    def pred(c, fill, latency, eff):
        mp, n, k = c["m_padded"], c["n"], c["k"]
        tm, tn, stages = actual_int8_tile(c) if actual else int8_tile(mp, n, k)
        m_tiles = -(-mp // tm)
        ctas = m_tiles * -(-n // tn)
        resident = max(1, int(smem // (stages * (tm + tn) * 128 + 1024)))
        steps = -(-k // 128)
        mma = 2 * tm * tn * 128 / (sheet / sms)
        w = mma + (mp / m_tiles + tn) * 128 / fill
        lone = mma + (tm + tn) * 128 / fill + latency / (stages - 1)
        per_sm = -(-ctas // sms)
        rounds = -(-per_sm // resident)
        comp = max(per_sm * steps * w, rounds * steps * lone) + rounds * pass_latency
        mem = ((mp * k + n * k) / read_bw + 4 * mp * n / write_bw) / eff
        return fixed + max(comp, mem)

    def is_fit(c):
        return (c["model"], c["shape"]) in FIT_SHAPES

    def loss(p):
        if min(p) <= 0 or p[2] > 1:
            return float("inf")
        return sum(math.log(pred(c, *p) / c["measured_s"]) ** 2 for c in cases if is_fit(c))
    best = min((nelder_mead(loss, x0) for x0 in ([100e9, 0.3e-6, 0.7], [200e9, 0.5e-6, 0.6], [60e9, 0.2e-6, 0.8])),
               key=lambda r: r[1])
    fill, latency, eff = best[0]
    print(f"int8 _int_mm (sm80 mma.sync{', kernels as profiled' if actual else ''}): int8_mma_sync_fill_rate "
          f"{fill / 1e9:.1f} GB/s int8_mma_sync_latency {latency * 1e6:.3f} us int8_mma_sync_stream_efficiency {eff:.3f}")
    for name, sel in (("fit shapes", True), ("held-out shapes", False)):
        e = sorted(abs(pred(c, fill, latency, eff) / c["measured_s"] - 1) for c in cases if is_fit(c) == sel)
        print(f"  {name}: n={len(e)} median {100 * statistics.median(e):.1f}% p90 {100 * e[int(0.9 * (len(e) - 1))]:.1f}%")
    named = sum(int8_tile(c["m_padded"], c["n"], c["k"]) == actual_int8_tile(c) for c in cases)
    print(f"  the rule names the profiled kernel in {named} of {len(cases)} cases")


def block_fp8_split(mp, n, k, sms=132):
    """quant_gemm_cost.cpp block_fp8_split: the most parts that fill the SMs at most once, keep
    their fp32 partials under 2^18 elements and walk more than 20 K blocks each."""
    rows = -(-mp // 16) * 16
    tiles = -(-rows // 128) * -(-n // 128)
    s = 1
    while (s + 1) * tiles <= sms and (s + 1) * rows * n < 262144 and k > 2560 * (s + 1):
        s += 1
    return s


def fit_block(results, cal):
    """The block-scaled FP8 kernel: fp8_block_cta_mma_efficiency, _stream_efficiency, _prologue."""
    q2 = os.path.join(os.path.dirname(results.rstrip("/")), "h200-quant2", "quant2.json")
    if not os.path.exists(q2):
        return
    read_bw = calib_value(cal, "read_bandwidth", 1e9)
    write_bw = calib_value(cal, "write_bandwidth", 1e9)
    floor = calib_value(cal, "kernel_floor", 1e-6)
    fixed = floor + calib_value(cal, "gemm_fixed", 1e-6)
    pass_latency = calib_value(cal, "pass_latency", 1e-6)
    m8 = re.search(r"^  fp8:\s*([0-9.eE+-]+)", cal, re.M)
    peak, sheet, sms = float(m8.group(1)) * 1e12, 1978.9e12, 132
    cases = [c for c in json.load(open(q2))["cases"] if c.get("dtype") == "fp8" and c.get("scaling") == "block"
             and c.get("model") != "sweep" and c.get("ok") and c.get("correct")]

    def pred(c, e1, e2, prologue):
        mp, n, k = c["m_padded"], c["n"], c["k"]
        tiles = -(-mp // 128) * -(-n // 128)
        split = block_fp8_split(mp, n, k)
        one_wave = tiles * split <= sms
        comp = (-(-(-(-k // 128)) // split) * 2 * 128 ** 3 / (e1 * sheet / sms) if one_wave
                else -(-tiles // sms) * 2 * 128 * 128 * k / (peak / sms))
        rd = mp * k + n * k + 4 * mp * k / 128 + 4 * n * k / 128 / 128
        t = fixed + (prologue if one_wave else 0.0) + max(comp, (rd / read_bw + 2 * mp * n / write_bw) / e2)
        if split > 1:
            t += floor + pass_latency + 4 * split * mp * n / read_bw + 2 * mp * n / write_bw
        return t

    def is_fit(c):
        return (c["model"], c["shape"]) in FIT_SHAPES

    def loss(p):
        if min(p) <= 0 or p[0] > 1.2 or p[1] > 1:
            return float("inf")
        return sum(math.log(pred(c, *p) / c["measured_s"]) ** 2 for c in cases if is_fit(c))
    best = min((nelder_mead(loss, x0) for x0 in ([0.9, 0.7, 3e-6], [0.8, 0.6, 5e-6])), key=lambda r: r[1])
    e1, e2, prologue = best[0]
    print(f"fp8 block: fp8_block_cta_mma_efficiency {e1:.3f} fp8_block_stream_efficiency {e2:.3f} "
          f"fp8_block_prologue {prologue * 1e6:.2f} us")
    for name, sel in (("fit shapes", True), ("held-out shapes", False)):
        e = sorted(abs(pred(c, *best[0]) / c["measured_s"] - 1) for c in cases if is_fit(c) == sel)
        print(f"  {name}: n={len(e)} median {100 * statistics.median(e):.1f}% p90 {100 * e[int(0.9 * (len(e) - 1))]:.1f}%")


if __name__ == "__main__":
    main()
