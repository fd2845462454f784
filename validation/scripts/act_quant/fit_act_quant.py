#!/usr/bin/env python3
"""Fit the one share of lib/src/cost/act_quant_cost.cpp (kSweepStreamShare): the share of the card's
copy streams (bf16 in at read_bandwidth, fp8 out at write_bandwidth) that a torch.compile(dynamic=True)'s
pointwise scale-and-cast kernel reaches on the H200, from
validation/results/h200-quant/quant-1.json's compiled static act_quant cases at K = 4096 and
14336 with M >= 1024 (K = 8192 held out): median of stream time / (measured - fixed), the fixed part
as act_quant_cost.cpp prices it (launch floor + a DRAM round trip + the store's L2 drain, from
hardware/h200.calibration.yaml). Usage: fit_act_quant.py [repo root]"""
import json
import re
import statistics
import sys
from pathlib import Path

root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
cal = (root / "hardware/h200.calibration.yaml").read_text()


def key(name, unit="us", scale=1e-6):
    return float(re.search(rf"^{name}: ([0-9.]+) {unit}", cal, re.M).group(1)) * scale


read_bw, write_bw = key("read_bandwidth", "GB/s", 1e9), key("write_bandwidth", "GB/s", 1e9)


fixed = key("kernel_floor") + key("pass_latency") + key("l2_pass_latency")
cases = json.load(open(root / "validation/results/h200-quant/quant-1.json"))["cases"]
rates = []
for c in cases:
    if (c["kernel"] == "act_quant" and c["implementation"] == "torch.compile" and c["scaling"] == "tensor"
            and c["act_quant"] == "static" and c["k"] in (4096, 14336) and c["m"] >= 1024):
        elements = c["m"] * c["k"]
        stream = elements * 2 / read_bw + elements / write_bw  # bf16 in, fp8 out (the 4-byte scales left out)
        r = stream / (c["measured_s"] - fixed)
        rates.append(r)
        print(f"{c['name']}: {elements / (c['measured_s'] - fixed):.3e} elements/s, share {r:.3f}")
print(f"fixed part {fixed * 1e6:.3f} us; kSweepStreamShare = {statistics.median(rates):.3f} (median of {len(rates)})")
