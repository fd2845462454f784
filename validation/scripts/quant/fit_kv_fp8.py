#!/usr/bin/env python3
"""Fits the fp8 KV cache's conversion cost (the calibration's `quant: fp8_kv_convert_per_element`)
on half of validation/results/h200-quant3's Triton decode-attention cases and prints it.

    python3 validation/scripts/quant/fit_kv_fp8.py validation/results/h200-quant3 [--calibration hardware/h200.calibration.yaml]

The model (lib/src/cost/production_decode_cost.cpp under the fused profile, plus
lib/src/cost/kv_cache_cost.cpp): the fused profile's production decode attention priced on the
cache's own bytes (fp8: half of bf16's), and a third bound, the conversion of every K and V
element from e4m3 to bf16 in registers:
    convert = 2 x batch x kv_heads x ctx x head_dim x c / issue_rate
    t = fixed + max(compute, memory, convert)
issue_rate = SMs x 4 schedulers x 1980 MHz x issue_efficiency (calibration). One parameter, c
(warp instructions per K/V element), by a grid search on the sum of squared log errors of the fit
half: head dim 128, GQA group 4 (batch 1..64, ctx 512..32768). Held out: groups 1 and 8 and head
dim 64. The bf16 cases of the same kernel are reported against the same model without the
conversion (nothing of it fitted here: the profile's decode keys come from FlashAttention-2).
This mirrors plan_production_decode and production_decode_cost; tests/test_quant_accuracy.cpp
recomputes the errors with the library itself.
"""
import argparse
import json
import math
import os
import re
import statistics


def fused_decode(text):
    """The fused profile's decode keys (calibration profiles: fused: decode:)."""
    block = text[text.index("profiles:"):]
    block = block[block.index("  fused:"):]
    block = block[block.index("    decode:"):]
    keys = {}
    for line in block.splitlines()[1:]:
        m = re.match(r"^      (\w+):\s*([0-9.eE+-]+)\s*(us|GB/s)?", line)
        if not m:
            break
        v = float(m.group(2))
        keys[m.group(1)] = v * (1e-6 if m.group(3) == "us" else 1e9 if m.group(3) == "GB/s" else 1)
    return keys


def splits(batch, heads, kv_heads, kv_len, head_dim, sms=132):
    """plan_production_decode: FlashAttention-2's num_splits_heuristic with the GQA group packed."""
    group = max(1, heads // kv_heads)
    ctas = batch * kv_heads * -(-group // 64)
    block_n = 256 if head_dim <= 64 else 128 if head_dim <= 128 else 64
    blocks = max(1, -(-kv_len // block_n))
    slots = 2.0 * sms
    if ctas >= 0.8 * slots:
        return ctas, 1
    max_s = min(int(slots), blocks, 128)

    def eff(s):
        w = ctas * s / slots
        return w / math.ceil(w)

    def eligible(s):
        return s == 1 or -(-blocks // s) != -(-blocks // (s - 1))
    best = max(eff(s) for s in range(1, max_s + 1) if eligible(s))
    for s in range(1, max_s + 1):
        if eligible(s) and eff(s) >= 0.85 * best:
            return ctas, s
    return ctas, 1


def parts(c, d, sms=132):
    """(fixed, max(compute, memory)) of production_decode_cost for the case's bytes."""
    esz = 1 if c["kv_dtype"] == "fp8" else 2
    b, h, hkv, L, D = c["batch"], c["heads"], c["kv_heads"], c["kv_len"], c["head_dim"]
    nbytes = 2 * b * hkv * L * D * esz + 2 * b * h * D * 2
    ctas, s = splits(b, h, hkv, L, D, sms)
    mem = nbytes / d["stream_bandwidth"]
    if s > 1:
        return d["call_floor"] + s * d["combine_per_split"], mem
    sh = d["nonsplit_softmax_share"]
    tile = d["nonsplit_tile"] * ((1 - sh) * D / 128 + sh)
    comp = max(1.0, ctas / sms) * L / 128 * tile
    return d["nonsplit_floor"], max(comp, mem)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--calibration", default="hardware/h200.calibration.yaml")
    a = ap.parse_args()
    text = open(a.calibration).read()
    d = fused_decode(text)
    issue = 132 * 4 * 1.98e9 * float(re.search(r"^issue_efficiency:\s*([0-9.eE+-]+)", text, re.M).group(1))
    cases = [c for c in json.load(open(os.path.join(a.results, "quant3.json")))["cases"]
             if c.get("ok") and c.get("correct") and c["implementation"].startswith("triton")]

    def is_fit(c):
        return c["head_dim"] == 128 and c["heads"] // c["kv_heads"] == 4

    def pred(c, k):
        fixed, body = parts(c, d)
        conv = 2 * c["batch"] * c["kv_heads"] * c["kv_len"] * c["head_dim"] * k / issue if c["kv_dtype"] == "fp8" else 0
        return fixed + max(body, conv)
    fp8 = [c for c in cases if c["kv_dtype"] == "fp8"]
    best = min((sum(math.log(pred(c, j / 1000) / c["measured_s"]) ** 2 for c in fp8 if is_fit(c)), j / 1000)
               for j in range(1, 2001))
    k = best[1]
    print(f"fp8_kv_convert_per_element {k:.3f} warp instructions per K/V element")

    def report(name, cs):
        e = sorted(abs(pred(c, k) / c["measured_s"] - 1) for c in cs)
        print(f"  {name}: n={len(e)} median {100 * statistics.median(e):.1f}% p90 {100 * e[int(0.9 * (len(e) - 1))]:.1f}%")
    report("fp8, fit half", [c for c in fp8 if is_fit(c)])
    report("fp8, held out", [c for c in fp8 if not is_fit(c)])
    bf16 = [c for c in cases if c["kv_dtype"] == "bf16"]
    report("bf16 (same model, no conversion)", bf16)
    report("bf16, head dim 128", [c for c in bf16 if c["head_dim"] == 128])


if __name__ == "__main__":
    main()
