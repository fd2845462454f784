#!/usr/bin/env python3
"""Fits the fp8 KV cache's conversion cost (the calibration's `quant: fp8_kv_convert_per_element`)
on half of validation/results/h200-quant3's Triton decode-attention cases and prints it, with the
errors of both halves.

    python3 validation/scripts/quant/fit_kv_fp8.py validation/results/h200-quant3 [--calibration hardware/h200.calibration.yaml]

The model mirrors the fused profile's decode (engine_decode_cost in
lib/src/kernels/attention_decode_cudnn.cpp: cuDNN's GQA-packed decode kernel, 16-row query tile,
one CTA per (sequence, KV head), split over all SMs when that is faster and the CTAs leave SMs
idle) on the cache's own bytes (fp8: half of bf16's), with the split decision the Triton kernel made
(triton_decode.py's plan_splits; since branch idle8, as the test prices it: the engine's own choice
with --engine-plan), with the conversion as a bound beside the
kernel's compute and its stream (lib/src/cost/kv_cache_cost.cpp), run by the SMs that hold the
CTAs, each on its own chain of keys:
    convert = 2 x head_dim x chain_keys x c / (issue_rate / SMs)
    chain_keys = split: max(CTAs x ctx / SMs, min(ctx, 128)); whole: waves x ctx
    t = fixed + max(compute, memory, convert)
issue_rate = SMs x 4 schedulers x 1980 MHz x issue_efficiency (calibration). One parameter, c
(warp instructions per K/V element), by a grid search on the sum of squared log errors of the
fit half's fp8 / bf16 time ratios, shape by shape (head dim 128, GQA group 4, batch 1..64, ctx
512..32768): the ratio takes the base decode model's error on the fit shapes out of the fit (on
absolute fp8 times c would absorb it: the Triton bf16 kernel streams at only ~3.8 TB/s at GQA 4,
head dim 128; fitted so, c = 0.414). --free-latency also fits a second, free per-element latency
on the chain beside a card-wide c (the check that one key carries both). Held out: groups 1 and 8
and head dim 64 (and any other set given with --held-out, e.g. h200-quant6's). The bf16 cases of
the same kernel are reported against the same model (no conversion; nothing of it fitted here).
tests/test_quant_kv_accuracy.cpp recomputes the errors with the library itself.
"""
import argparse
import json
import math
import os
import re
import statistics

ENGINE_PLAN = False  # --engine-plan
KEY_TILE = 128  # cuDNN decode kernel's key tile (attention_decode_cudnn.cpp kKeyTile)
QUERY_ROWS = 16  # its query tile


def profile_block(text, profile, block):
    """{key: SI value} of `profiles: <profile>: <block>:` in the calibration file."""
    part = text[text.index("profiles:"):]
    part = part[part.index(f"  {profile}:"):]
    part = part[part.index(f"    {block}:"):]
    keys = {}
    for line in part.splitlines()[1:]:
        m = re.match(r"^      (\w+):\s*([0-9.eE+-]+)\s*(us|GB/s)?", line)
        if not m:
            break
        v = float(m.group(2))
        keys[m.group(1)] = v * (1e-6 if m.group(3) == "us" else 1e9 if m.group(3) == "GB/s" else 1)
    return keys


def top(text, key):
    m = re.search(rf"^{key}:\s*([0-9.eE+-]+)\s*(\w+/s|\w+)?", text, re.M)
    scale = {"GB/s": 1e9, "MB": 1e6, "TFLOP/s": 1e12}.get(m.group(2), 1)
    return float(m.group(1)) * scale


def cyclic_l2_hit(working_set, capacity):
    """lib/src/machine/l2_residency.cpp."""
    if working_set <= 0:
        return 0.0
    x = working_set / capacity
    if x <= 1:
        return 1.0
    lo, hi = 0.0, 1 - 1e-12
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if math.exp(-x * (1 - mid)) > mid:
            lo = mid
        else:
            hi = mid
    return lo


class Model:
    def __init__(self, text, sms=132):
        self.d = profile_block(text, "fused", "cudnn_decode")
        self.sms = sms
        self.issue = sms * 4 * 1.98e9 * top(text, "issue_efficiency")
        m = re.search(r"^  bf16:\s*([0-9.]+) TFLOP/s", text, re.M)
        self.peak = float(m.group(1)) * 1e12  # gemm_peak: bf16
        self.l2_bw = top(text, "l2_bandwidth")
        self.l2_cap = top(text, "l2_cyclic_capacity")

    def times(self, c, split, k, lat):
        """Total time of decode_times (attention_decode_cudnn.cpp) for one plan."""
        b, h, hkv, L, D = c["batch"], c["heads"], c["kv_heads"], c["kv_len"], c["head_dim"]
        fp8 = c["kv_dtype"] == "fp8"
        esz = 1 if fp8 else 2
        ctas = b * hkv * -(-(h // hkv) // QUERY_ROWS)
        nbytes = 2 * b * hkv * L * D * esz + 2 * b * h * D * 2
        hit = cyclic_l2_hit(c.get("rotated_bytes", 0), self.l2_cap)
        waves = math.ceil(ctas / self.sms)
        fill = 1.0 if split else ctas / (waves * self.sms)
        fixed = self.d["kernel_floor"] + (self.d["reduction_floor"] if split else 0)
        mem = hit * nbytes / self.l2_bw + (1 - hit) * nbytes / (self.d["stream_bandwidth"] * fill)
        if not split:
            mem = max(mem, waves * self.d["cta_latency"] * D / 128)
        comp = 4 * ctas * QUERY_ROWS * L * D / self.peak
        if fp8:
            chain_keys = max(ctas * L / self.sms, min(L, KEY_TILE)) if split else waves * L
            # lat None: the chain at one SM's issue rate (the library); else a free latency per
            # element beside the card-wide share (--free-latency)
            chain = 2 * D * chain_keys * (k * self.sms / self.issue if lat is None else lat)
            comp = max(comp, 2 * b * hkv * L * D * k / self.issue, chain)
        return fixed + max(comp, mem)

    def predict(self, c, k, lat=None):
        """The plan the Triton kernel ran (triton_decode.py's plan_splits: split when it cuts the keys,
        as tests/test_quant_kv_accuracy.cpp prices it since branch idle8); with ENGINE_PLAN,
        engine_decode_cost's: the whole kernel, or the split when the CTAs leave SMs idle and it is
        faster (0.382 fitted so; 0.381 on the plan as run)."""
        if ENGINE_PLAN:
            ctas = c["batch"] * c["kv_heads"] * -(-(c["heads"] // c["kv_heads"]) // QUERY_ROWS)
            whole = self.times(c, False, k, lat)
            return whole if ctas >= self.sms else min(whole, self.times(c, True, k, lat))
        base = c["batch"] * c["kv_heads"]
        splits = max(1, min(math.ceil(2 * self.sms / base), math.ceil(c["kv_len"] / 256), 64))
        return self.times(c, splits > 1, k, lat)


def shape_key(c):
    return (c["batch"], c["heads"], c["kv_heads"], c["kv_len"], c["head_dim"])


def p90(e):
    return e[int(0.9 * (len(e) - 1))]


def report(name, model, cs, k, lat):
    e = sorted(abs(model.predict(c, k, lat) / c["measured_s"] - 1) for c in cs)
    if e:
        print(f"  {name}: n={len(e)} median {100 * statistics.median(e):.1f}% p90 {100 * p90(e):.1f}%")


def report_ratio(name, model, cs, k, lat):
    bf16 = {shape_key(c): c for c in cs if c["kv_dtype"] == "bf16"}
    e = []
    for c in cs:
        if c["kv_dtype"] != "fp8" or shape_key(c) not in bf16:
            continue
        b = bf16[shape_key(c)]
        pred = model.predict(c, k, lat) / model.predict(b, k, lat)
        e.append(abs(pred / (c["measured_s"] / b["measured_s"]) - 1))
    e.sort()
    if e:
        print(f"  {name} fp8/bf16 ratio: n={len(e)} median {100 * statistics.median(e):.1f}% p90 {100 * p90(e):.1f}%")


def load(path, name):
    f = os.path.join(path, name)
    return [c for c in json.load(open(f))["cases"]
            if c.get("ok") and c.get("correct") and c["implementation"].startswith("triton")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--calibration", default="hardware/h200.calibration.yaml")
    ap.add_argument("--held-out", default="", help="another results folder of Triton decode cases (e.g. h200-quant6)")
    ap.add_argument("--free-latency", action="store_true", help="also fit a free chain latency beside a card-wide c")
    ap.add_argument("--engine-plan", action="store_true", help="price with the engine's split choice, not the Triton kernel's")
    a = ap.parse_args()
    global ENGINE_PLAN
    ENGINE_PLAN = a.engine_plan
    model = Model(open(a.calibration).read())
    cases = load(a.results, "quant3.json")

    def is_fit(c):
        return c["head_dim"] == 128 and c["heads"] // c["kv_heads"] == 4
    fit_pairs = []
    bf16 = {shape_key(c): c for c in cases if is_fit(c) and c["kv_dtype"] == "bf16"}
    for c in cases:
        if is_fit(c) and c["kv_dtype"] == "fp8":
            fit_pairs.append((c, bf16[shape_key(c)]))

    def loss(k, lat=None):
        return sum(math.log(model.predict(f, k, lat) / model.predict(b, k, lat) / (f["measured_s"] / b["measured_s"])) ** 2
                   for f, b in fit_pairs)
    best = min((loss(i / 1000), i / 1000) for i in range(100, 1001))
    k, lat = best[1], None
    print(f"fp8_kv_convert_per_element {k:.3f} warp instructions per K/V element (fit half's fp8/bf16 ratios)")
    if a.free_latency:
        two = min((loss(i / 100, j * 1e-12), i / 100, j * 1e-12) for i in range(10, 81) for j in range(0, 121))
        print(f"  free latency: card-wide c {two[1]:.2f}, chain {two[2] * 1e9:.4f} ns per element "
              f"(one SM's issue time at c = {k:.3f}: {k * model.sms / model.issue * 1e9:.4f} ns)")
    fit = [f for f, _ in fit_pairs]
    held = [c for c in cases if not is_fit(c)]
    report("fp8, fit half", model, fit, k, lat)
    report("fp8, held out", model, [c for c in held if c["kv_dtype"] == "fp8"], k, lat)
    report("bf16, held out (same model, no conversion)", model, [c for c in held if c["kv_dtype"] == "bf16"], k, lat)
    report_ratio("fit half", model, [c for c in cases if is_fit(c)], k, lat)
    report_ratio("held out", model, held, k, lat)
    if a.held_out:
        more = [c for c in load(a.held_out, "quant6.json") if c.get("kernel") == "attention_decode"]
        report(f"{a.held_out} fp8", model, [c for c in more if c["kv_dtype"] == "fp8"], k, lat)
        report(f"{a.held_out} bf16", model, [c for c in more if c["kv_dtype"] == "bf16"], k, lat)
        report_ratio(a.held_out, model, more, k, lat)


if __name__ == "__main__":
    main()
