#!/usr/bin/env python3
"""Fits the eager profile's `aten:` values (PyTorch's own kernels, lib/src/cost/aten_kernel_cost.cpp)
on the EVEN case indices of validation/results/h200-production/kernels.json (torch.eager cases).

Usage: python3 validation/scripts/production/fit_aten.py [kernels.json] [hardware/h200.calibration.yaml]

The formulas are those of aten_kernel_cost.cpp (t = floor + max(waves x row chain, DRAM stream));
the cache cat's rate on the even hf.json decode steps (copy_cat category); the strided rate and
floor on the rotary chain (HF apply_rotary_pos_emb: five kernels per tensor, all on the generic path
beyond one token; at one token the final add is vectorized, priced here as floor + DRAM round trip
+ stream, close to stream_cost.cpp). Grid search on squared log error. `perfmodel accuracy` recomputes every error
with the C++ model; that is what docs/accuracy.md reports and the tests guard. Odd indices and
validation/results/h200-eager-heldout are never read here.
"""
import math
import json
import sys

import yaml


def number(v):
    """'4658.4 GB/s' / '0.91 us' / '34.86 MB' -> SI float."""
    if isinstance(v, (int, float)):
        return float(v)
    x, unit = v.split()[:2]
    scale = {"GB/s": 1e9, "us": 1e-6, "MB": 1e6, "B": 1}[unit]
    return float(x) * scale


def main(path, cal_path):
    cal = yaml.safe_load(open(cal_path))
    RB, WB, L2B = number(cal["read_bandwidth"]), number(cal["write_bandwidth"]), number(cal["l2_bandwidth"])
    CAP, DLAT, L2LAT = number(cal["l2_cyclic_capacity"]), number(cal["pass_latency"]), number(cal["l2_pass_latency"])
    FLOOR = number(cal["kernel_floor"])
    SMS = 132
    cases = [c for i, c in enumerate(json.load(open(path))["cases"])
             if i % 2 == 0 and c.get("implementation") == "torch.eager" and c["ok"] and c["correct"]]

    def hit(c):
        x = c.get("rotated_bytes", 0) / CAP
        if x <= 0:
            return 0.0
        if x <= 1:
            return 1.0
        lo, hi = 0.0, 1 - 1e-12
        for _ in range(80):
            mid = (lo + hi) / 2
            if math.exp(-x * (1 - mid)) > mid:
                lo = mid
            else:
                hi = mid
        return lo

    def stream(c, rd, wr):
        h = hit(c)
        return h * (rd + wr) / L2B + (1 - h) * (rd / RB + wr / WB)

    def row(c, floor, chain, slots):
        h = hit(c)
        waves = max(1, math.ceil(c["rows"] / slots))
        scale = h * L2LAT / DLAT + 1 - h
        half = c["bytes"] / 2  # read the row once, write it once (weights negligible)
        return floor + max(waves * chain * c["cols"] / 1024 * scale, stream(c, half, half))

    def grid(loss, ranges):
        best = None
        for a in ranges[0]:
            for b in ranges[1]:
                v = loss(a, b)
                if best is None or v < best[0]:
                    best = (v, a, b)
        return best[1], best[2]

    us = lambda lo, hi, step: [x * step * 1e-6 for x in range(int(lo / step), int(hi / step) + 1)]
    sq = lambda pred, c: math.log(pred / c["measured_s"]) ** 2
    out = {}
    norm_slots = SMS * 8
    rms = [c for c in cases if c["kernel"] == "rmsnorm"]
    ln = [c for c in cases if c["kernel"] == "layernorm"]
    # one floor for both norms (the same kernel), a chain each
    best = None
    for f in us(0.5, 4.0, 0.05):
        cr = grid(lambda a, _: sum(sq(row(c, f, a, norm_slots), c) for c in rms), [us(0.5, 3.0, 0.01), [0]])[0]
        cl = grid(lambda a, _: sum(sq(row(c, f, a, norm_slots), c) for c in ln), [us(0.5, 3.0, 0.01), [0]])[0]
        v = sum(sq(row(c, f, cr, norm_slots), c) for c in rms) + sum(sq(row(c, f, cl, norm_slots), c) for c in ln)
        if best is None or v < best[0]:
            best = (v, f, cr, cl)
    out.update(norm_floor=best[1], rmsnorm_chain=best[2], layernorm_chain=best[3])

    sm = [c for c in cases if c["kernel"] == "softmax_fused"]
    variant = lambda c: "warp" if c["cols"] <= 2048 else "reg" if (c["cols"] + 1023) // 1024 < 10 else "smem"
    slots = {"warp": SMS * 64, "reg": SMS, "smem": SMS}
    best = None
    for f in us(0.5, 4.0, 0.05):
        chains, v = {}, 0.0
        for var in ("warp", "reg", "smem"):
            sub = [c for c in sm if variant(c) == var]
            ch = grid(lambda a, _: sum(sq(row(c, f, a, slots[var]), c) for c in sub), [us(0.05, 8.0, 0.01), [0]])[0]
            chains[var] = ch
            v += sum(sq(row(c, f, ch, slots[var]), c) for c in sub)
        if best is None or v < best[0]:
            best = (v, f, chains)
    out.update(softmax_floor=best[1], softmax_warp_chain=best[2]["warp"], softmax_reg_chain=best[2]["reg"],
               softmax_smem_chain=best[2]["smem"])

    # The warp softmax over many rows is issue-bound (aten_kernel_cost.cpp): padded elements per
    # second beyond the floor, median over the EVEN eager softmax cases of
    # validation/results/h200-eltwise4 (its warp-softmax cases at 4096-65536 rows: h200-production
    # has none past 256 rows), narrow (<= 1024 columns) and wide apart; its odd cases held out.
    warp = json.load(open(path.replace("h200-production", "h200-eltwise4")))["cases"]
    pow2 = lambda n: 1 << (n - 1).bit_length()
    for key, wide in (("softmax_warp_elements_per_s", False), ("softmax_warp_wide_elements_per_s", True)):
        r = sorted(c["rows"] * pow2(c["cols"]) / (c["measured_s"] - out["softmax_floor"])
                   for i, c in enumerate(warp) if i % 2 == 0 and c.get("implementation") == "torch.eager"
                   and c["kernel"] == "softmax_fused" and c["cols"] <= 2048 and (pow2(c["cols"]) > 1024) == wide)
        out[key] = (r[(len(r) - 1) // 2] + r[len(r) // 2]) / 2

    # DynamicCache's torch.cat of the whole K/V cache (CatArrayBatchedCopy over the cropped,
    # strided cache): elements per second from the even hf.json decode steps whose copy_cat
    # category is dominated by it (>= 1 ms; the rest of the category, RMSNorm's casts, is a few
    # hundred microseconds), median over the steps.
    hf = json.load(open(path.replace("kernels.json", "hf.json")))["steps"]
    rates = []
    for i, st in enumerate(hf):
        if i % 2 or st["phase"] != "decode" or st["kernel_by_category_s"].get("copy_cat", 0) < 1e-3:
            continue
        y = yaml.safe_load(open(f"models/{st['model']}.yaml"))
        kvh = y.get("num_key_value_heads", y["num_attention_heads"])
        hd = y.get("head_dim", y["hidden_size"] // y["num_attention_heads"])
        elems = 2 * st["batch"] * kvh * st["ctx"] * hd * y["num_hidden_layers"]
        rates.append(elems / st["kernel_by_category_s"]["copy_cat"])
    rates.sort()
    cat_rate = (rates[(len(rates) - 1) // 2] + rates[len(rates) // 2]) / 2
    out.update(cat_elements_per_s=cat_rate)

    rot = [c for c in cases if c["kernel"] == "rotary"]

    def rotary(c, rate, floor):
        t = c["q_len"] * c["batch"]
        total = 0.0
        for heads in (c["heads"], c["kv_heads"]):
            e = t * heads * c["head_dim"]
            for elems, rd, wr, r in ((e, 2 * e + t * c["head_dim"] * 2, 2 * e, rate), (e / 2, e, e, rate),
                                     (e, 2 * e, 2 * e, rate),  # cat: the generic path too
                                     (e, 2 * e + t * c["head_dim"] * 2, 2 * e, rate)):  # mul_cos, neg, cat, mul_sin
                total += floor + max(elems / r, stream(c, rd, wr))
            if t > 1:  # the add keeps the transposed layout: the generic kernel (eager_ops.cpp)
                total += floor + max(e / rate, stream(c, 4 * e, 2 * e))
            else:  # one position: contiguous views, the vectorized add
                total += FLOOR + DLAT + stream(c, 4 * e, 2 * e)
        return total

    rate, floor = grid(lambda a, b: sum(sq(rotary(c, a, b), c) for c in rot),
                       [[x * 1e10 for x in range(5, 200)], us(0.2, 4.0, 0.05)])
    out.update(strided_elements_per_s=rate, strided_floor=floor)
    print(f"fitted on {len(rms)} rmsnorm, {len(ln)} layernorm, {len(sm)} softmax, {len(rot)} rotary cases "
          f"(even indices of {path})")
    print("    aten:")
    for k, v in out.items():
        print(f"      {k}: {v:.4g}" if k.endswith("elements_per_s") else f"      {k}: {v * 1e6:.3f} us")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-production/kernels.json",
         sys.argv[2] if len(sys.argv) > 2 else "hardware/h200.calibration.yaml")
