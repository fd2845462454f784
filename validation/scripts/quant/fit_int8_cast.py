#!/usr/bin/env python3
"""Fits the eager profile's `int8_cast_elements_per_s` (profiles.eager.aten in the calibration): ATen's
int8 -> bf16 conversion, the first of an eager W8A16 call's three kernels (torchao on a GPU:
F.linear(x, w_int8.to(bf16)) * scale; validation/results/h200-int8-compiled/int8wo_eager.jsonl), priced
as TensorIterator's non-vectorized path: strided_floor + elements / rate (aten_kernel_cost.cpp).

Fit set: the Llama-3-8B shapes (l3_*: 4 weights x 5 token counts; the conversion does not depend on M,
so these are 4 kernels measured 5 times each); held out: the Qwen2.5-7B ones (q2_*), and every call's
whole price in tests/test_quant_compiled.cpp. rate = median of elements / (duration - strided_floor).

    python3 validation/scripts/quant/fit_int8_cast.py
"""
import json
import os
import re
import statistics

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join(ROOT, "validation/results/h200-int8-compiled/int8wo_eager.jsonl")
CAL = os.path.join(ROOT, "hardware/h200.calibration.yaml")


def strided_floor_s():
    text = open(CAL).read()
    eager = text[text.index("\n  eager:"):text.index("\n  compiled:")]
    return float(re.search(r"strided_floor: ([0-9.]+) us", eager).group(1)) * 1e-6


def main():
    floor = strided_floor_s()
    fit, held = [], []
    for c in map(json.loads, open(DATA)):
        if c["kind"] != "case" or not c.get("ok"):
            continue
        k = c["kernels"][0]
        assert "unrolled_elementwise_kernel" in k["name"], k["name"]
        elements, dur = c["n"] * c["k"], k["dur_us"] * 1e-6
        (fit if "_l3_" in c["name"] else held).append((c["name"], elements, dur))
    rate = statistics.median(e / (d - floor) for _, e, d in fit)
    print(f"int8_cast_elements_per_s: {rate:.4g}   (fit on {len(fit)} calls, strided_floor {floor * 1e6:.2f} us)")
    errs = [abs((floor + e / rate) / d - 1) for _, e, d in held]
    print(f"held out ({len(held)} calls): conversion kernel |error| median {statistics.median(errs) * 100:.1f} %, "
          f"max {max(errs) * 100:.1f} %")


if __name__ == "__main__":
    main()
