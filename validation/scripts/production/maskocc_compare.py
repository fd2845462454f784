#!/usr/bin/env python3
"""Branch maskocc: h200-maskocc's masked decode SDPA calls (in a CUDA graph) against the compiled profile's
price (`perfmodel op --kind attention --impl compiled`, K / V heads = heads as the compiled step repeats
them). Measured: the SDPA kernel's median plus, when split, lean_reduction's median and the graph's gap
before it (the calibration's graph_kernel_gap: the op's price counts it). The grid's split count is checked
against decode_split.hpp's rule as printed by the price (not exposed: the ratio is printed instead).

Usage (repository root): python3 validation/scripts/production/maskocc_compare.py BINARY [CALIBRATION]
"""
import json
import statistics as st
import subprocess
import sys
import yaml

binary = sys.argv[1]
cal = sys.argv[2] if len(sys.argv) > 2 else "hardware/h200.calibration.yaml"
gap = yaml.safe_load(open(cal))["profiles"]["compiled"]["graph_kernel_gap"]
gap = float(str(gap).split()[0]) * 1e-6
errs = {"A": [], "B": []}
for i, line in enumerate(open("validation/results/h200-maskocc/maskocc.jsonl")):
    r = json.loads(line)
    if r["kind"] != "sdpa" or "error" in r:
        continue
    sd = [k[1] for k in r["trace"] if "sdpa" in k[0]]
    lr = [k[1] for k in r["trace"] if "lean" in k[0]]
    grid = [k[2] for k in r["trace"] if "sdpa" in k[0]][0]
    meas = (st.median(sd) + (st.median(lr) + gap * 1e6 if lr else 0)) * 1e-6
    out = subprocess.run([binary, "op", "--card", "h200", "--kind", "attention", "--batch", str(r["batch"]), "--heads",
                          str(r["heads"]), "--kv-heads", str(r["heads"]), "--q-len", "1", "--kv-len", str(r["kv_len"]),
                          "--head-dim", str(r["head_dim"]), "--impl", "compiled", "--calibration", cal, "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    pred = json.loads(out)["device_time_s"]
    e = pred / meas - 1
    errs[r["part"]].append(abs(e))
    print(f'{i:2d} {r["part"]} b{r["batch"]:2d} h{r["heads"]:2d} d{r["head_dim"]:3d} kv{r["kv_len"]:5d} splits {grid[0]:2d} CTAs '
          f'{grid[0] * grid[1] * grid[2]:5d}  meas {meas * 1e6:7.2f}  pred {pred * 1e6:7.2f}  {100 * e:+6.1f}%')
for k, v in errs.items():
    v.sort()
    print(f"part {k}: {len(v)} cases, |err| median {100 * st.median(v):.1f} %, p90 {100 * v[int(0.9 * len(v)) - 1]:.1f} %")
