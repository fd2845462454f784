#!/usr/bin/env python3
"""Every committed torch.sdpa.cudnn decode case priced with `perfmodel op --kind attention --impl eager`:
one line a case (set, index, head dim, CTAs, shape, measured / priced us, signed error, TB/s). Branch decodeocc.

Usage: python3 validation/scripts/production/decodeocc_cases.py BINARY"""
import glob
import json
import math
import subprocess
import sys

binary = sys.argv[1]
rows = []
for path in sorted(glob.glob("validation/results/h200*/kernels.json")):
    try: cases = json.load(open(path))["cases"]
    except Exception: continue
    for i, c in enumerate(cases):
        if c.get("kernel") != "attention_decode" or c.get("implementation") != "torch.sdpa.cudnn" or not c.get("ok"):
            continue
        op = json.loads(subprocess.run([binary, "op", "--card", "h200", "--kind", "attention", "--batch", str(c["batch"]),
            "--heads", str(c["heads"]), "--kv-heads", str(c["kv_heads"]), "--q-len", "1", "--kv-len", str(c["kv_len"]),
            "--head-dim", str(c["head_dim"]), "--impl", "eager", "--format", "json"], capture_output=True, text=True).stdout)
        g = c["heads"] // c["kv_heads"]
        ctas = c["batch"] * c["kv_heads"] * math.ceil(g / 16)
        bytes_ = 4 * c["batch"] * c["kv_heads"] * c["kv_len"] * c["head_dim"]
        rows.append((path.split("/")[2], i, c["head_dim"], ctas, c["batch"], c["heads"], c["kv_heads"], c["kv_len"],
                     c["measured_s"] * 1e6, op["device_time_s"] * 1e6, op["device_time_s"] / c["measured_s"] - 1, bytes_ / c["measured_s"] / 1e12))
rows.sort(key=lambda r: (r[2], r[3]))
for r in rows:
    print("%-22s %3d d%-3d ctas %5d b%-4d %2d/%-2d kv%-6d meas %8.1f pred %8.1f err %+6.1f%%  %.2f TB/s" % (r[:10] + (100 * r[10], r[11])))
