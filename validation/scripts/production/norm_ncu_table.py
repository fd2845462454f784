#!/usr/bin/env python3
"""Reads validation/results/h200-normissue/ncu_<rows>.csv (norm_ncu.py under Nsight Compute) and prints, per op and
width, the first measured launch's registers, warp instructions a row, the SM's issue rate, warps active, duration and
DRAM bytes; then the least-squares line of instructions a row against the columns (1024-16384) that
aten_kernel_cost.cpp's norm_overlap_kernel carries.

    python3 validation/scripts/production/norm_ncu_table.py [rows ...]
"""
import csv
import io
import sys

D = "validation/results/h200-normissue"
COLS = [576, 1024, 1536, 2048, 2560, 3072, 4096, 5120, 6144, 8192, 11008, 14336, 16384]  # norm_ncu.py's order


def num(x):
    return float(x.replace(",", ""))


def launches(rows):
    lines = open(f"{D}/ncu_{rows}.csv").read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    found = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))[1:]  # the second row holds the units
    out = []
    for i, r in enumerate(found[::2]):  # two launches a width: the first
        out.append(dict(op=("rms_norm", "layer_norm")[i // len(COLS)], cols=COLS[i % len(COLS)], regs=r["launch__registers_per_thread"],
                        per_row=num(r["smsp__inst_executed.sum"]) / num(r["launch__grid_size"]),
                        ipc=num(r["sm__inst_executed.avg.per_cycle_active"]),
                        warps=num(r["sm__warps_active.avg.pct_of_peak_sustained_active"]), us=num(r["gpu__time_duration.sum"]) / 1e3,
                        read=num(r["dram__bytes_read.sum"]) / 1e6, limit=r["launch__occupancy_limit_warps"]))
    return out


def main(rows_list):
    for rows in rows_list:
        print(f"\n{rows} rows\n| op | columns | registers | CTAs an SM (warp limit) | instructions a row | IPC an SM | warps active | us | DRAM read MB |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in launches(rows):
            print(f"| {r['op']} | {r['cols']} | {r['regs']} | {r['limit']} | {r['per_row']:.0f} | {r['ipc']:.2f} | {r['warps']:.0f} % | "
                  f"{r['us']:.2f} | {r['read']:.1f} |")
    found = launches(rows_list[0])
    for op in ("rms_norm", "layer_norm"):
        pts = [(r["cols"], r["per_row"]) for r in found if r["op"] == op and r["cols"] >= 1024]
        n = len(pts)
        mx, my = sum(x for x, _ in pts) / n, sum(y for _, y in pts) / n
        b = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
        a = my - b * mx
        worst = max(abs((a + b * x) / y - 1) for x, y in [(r["cols"], r["per_row"]) for r in found if r["op"] == op])
        print(f"{op}: {a:.0f} + {b:.4f} a column (1024-16384; within {100 * worst:.1f} % of every width, 576 included)")


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or [4224, 1056, 132])
