#!/usr/bin/env python3
"""Fit the one rate of lib/src/cost/act_quant_cost.cpp (kSweepElementsPerS): the elements a
second torch.compile(dynamic=True)'s pointwise scale-and-cast kernel sweeps over the H200, from
validation/results/h200-quant/quant-1.json's compiled static act_quant cases at K = 4096 and
14336 with M >= 1024 (K = 8192 held out): median of elements / (measured - fixed), the fixed part
as act_quant_cost.cpp prices it (launch floor + a DRAM round trip + the store's L2 drain, from
hardware/h200.calibration.yaml). Usage: fit_act_quant.py [repo root]"""
import json
import re
import statistics
import sys
from pathlib import Path

root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
cal = (root / "hardware/h200.calibration.yaml").read_text()


def key(name):
    return float(re.search(rf"^{name}: ([0-9.]+) us", cal, re.M).group(1)) * 1e-6


fixed = key("kernel_floor") + key("pass_latency") + key("l2_pass_latency")
cases = json.load(open(root / "validation/results/h200-quant/quant-1.json"))["cases"]
rates = []
for c in cases:
    if (c["kernel"] == "act_quant" and c["implementation"] == "torch.compile" and c["scaling"] == "tensor"
            and c["act_quant"] == "static" and c["k"] in (4096, 14336) and c["m"] >= 1024):
        r = c["m"] * c["k"] / (c["measured_s"] - fixed)
        rates.append(r)
        print(f"{c['name']}: {r:.3e} elements/s")
print(f"fixed part {fixed * 1e6:.3f} us; kSweepElementsPerS = {statistics.median(rates):.3e} (median of {len(rates)})")
