#!/usr/bin/env python3
"""h200-widencu's table (lead, nineteenth session; issue 10): each wide-group cuDNN decode call's kernels as Nsight
Compute read them, beside the unique K / V bytes and perfmodel's price of the call.

    python3 validation/scripts/production/widencu_table.py validation/results/h200-widencu/ncu.csv \
        [build/tools/perfmodel/perfmodel [card]]     (card: h200 by default; h100-sxm for h100-widencu)

Per call: the attention kernel's grid (x, as ncu's launch__grid_size gives the product only: x = grid / (batch x KV
heads x query tiles) when it divides), registers, occupancy limits, its duration and the merge's, DRAM bytes read over
the unique K / V (1.0: read once), L2 bytes over DRAM bytes, and the model's price (perfmodel op --impl eager).
"""
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import widegroup_ncu  # noqa: E402  (the shape list, in ncu's order; no torch needed to read it)


def rows(path):
    with open(path) as f:
        lines = [ln for ln in f if ln.startswith('"')]
    r = list(csv.reader(lines))
    head, body = r[0], r[2:]  # the second row holds the units
    return [dict(zip(head, x)) for x in body]


def num(s):
    return float(s.replace(",", "")) if s not in ("", "n/a") else float("nan")


def price(perfmodel, b, h, kvh, n, d, card="h200"):
    out = subprocess.run([perfmodel, "op", "--card", card, "--impl", "eager", "--kind", "attention", "--batch", str(b),
                          "--heads", str(h), "--kv-heads", str(kvh), "--q-len", "1", "--kv-len", str(n),
                          "--head-dim", str(d), "--format", "json"], capture_output=True, text=True, check=True)
    j = json.loads(out.stdout)
    return j["device_time_s"]


def main():
    recs = rows(sys.argv[1])
    perfmodel = sys.argv[2] if len(sys.argv) > 2 else None
    card = sys.argv[3] if len(sys.argv) > 3 else "h200"
    # Kernels in launch order; a call is its attention kernel and the merge that may follow.
    calls, cur = [], None
    for r in recs:
        name = r["Kernel Name"]
        if "reduction" in name and cur is not None:
            cur["merge"] = r
        else:
            cur = {"attn": r, "merge": None}
            calls.append(cur)
    if len(calls) != len(widegroup_ncu.SHAPES):
        print(f"{len(calls)} calls in the csv, {len(widegroup_ncu.SHAPES)} shapes: the table pairs them in order")
    print("| # | batch | heads / KV | keys | d | grid | x | regs | occ lim (reg/smem) | attn us | merge us | DRAM / KV | L2 / DRAM | KV TB/s | priced us |")
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for i, (c, s) in enumerate(zip(calls, widegroup_ncu.SHAPES)):
        b, h, kvh, n, d = s
        a, m = c["attn"], c["merge"]
        grid = int(num(a["launch__grid_size"]))
        dims = "x".join(a.get(f"launch__grid_dim_{c}", "?").replace(",", "") for c in "xyz")
        tiles = -(-(h // kvh) // 16)
        units = b * kvh * tiles
        x = grid / units if grid % units == 0 else float("nan")
        t_attn = num(a["gpu__time_duration.sum"]) * 1e-3  # ns -> us (ncu's raw page: nsecond)
        t_merge = num(m["gpu__time_duration.sum"]) * 1e-3 if m else 0.0
        kv = 2.0 * 2 * b * kvh * n * d
        dram = num(a["dram__bytes_read.sum"])
        l2 = num(a["lts__t_bytes.sum"])
        pr = price(perfmodel, b, h, kvh, n, d, card) * 1e6 if perfmodel else float("nan")
        print(f"| {i} | {b} | {h} / {kvh} | {n} | {d} | {grid} ({dims}) | {x:.0f} | {a['launch__registers_per_thread']} | "
              f"{a['launch__occupancy_limit_registers']} / {a['launch__occupancy_limit_shared_mem']} | {t_attn:.1f} | "
              f"{t_merge:.1f} | {dram / kv:.2f} | {l2 / max(dram, 1):.1f} | {kv / (t_attn * 1e-6) / 1e12:.2f} | {pr:.1f} |")


if __name__ == "__main__":
    main()
