#!/usr/bin/env python3
"""Reads h200-quant9's block trace of ATen's weight_int8pack_mm_kernel (int8pack_trace.py) and prints,
per case, where the blocks past the first resident round ran (issue 12, branch quant9):

    python3 validation/scripts/quant/int8pack_trace_report.py validation/results/h200-quant9

Pure Python (no NumPy here): trace.npz is read as the zip of .npy files it is. A block's record is
(%globaltimer at entry, at exit, %smid | %warpid << 32, clock64 cycles). A block that started within
20 us of the first is of the first resident round (its blocks end after >= 150 us).
kLateSkew of quant_gemm_cost.cpp is the last case's `busiest / mean` (M = 1, N = 28672).
"""
import array
import ast
import collections
import os
import statistics
import sys
import zipfile


def load(path):
    out = {}
    z = zipfile.ZipFile(path)
    for name in z.namelist():
        b = z.read(name)
        hl = int.from_bytes(b[8:10], "little")
        header = ast.literal_eval(b[10:10 + hl].decode())
        a = array.array("Q")
        a.frombytes(b[10 + hl:])
        rows, cols = header["shape"]
        out[name[:-4]] = [a[i * cols:(i + 1) * cols] for i in range(rows)]
    return out


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-quant9"
    traces = load(os.path.join(d, "trace.npz"))
    print("| case | blocks | late | SMs given late blocks | late blocks on the busiest SM / mean (skew) | "
          "most common late count an SM | late starts (us) | late K step, cycles (median) | first round K step |")
    print("| --- | ---: | ---: | ---: | --- | ---: | --- | ---: | ---: |")
    for name, recs in traces.items():
        k = int(name.split("_k")[1])
        t0 = min(r[0] for r in recs)
        start = [(r[0] - t0) / 1e3 for r in recs]
        sm = [r[2] & 0xFFFFFFFF for r in recs]
        cyc = [r[3] / k for r in recs]
        late = [i for i in range(len(recs)) if start[i] >= 20.0]
        first = [i for i in range(len(recs)) if start[i] < 20.0]
        fc = statistics.median(cyc[i] for i in first)
        if not late:
            print(f"| {name} | {len(recs)} | 0 | - | - | - | - | - | {fc:.0f} |")
            continue
        per_sm = collections.Counter(sm[i] for i in late)
        mean = len(late) / 132
        busiest = max(per_sm.values())
        common = collections.Counter(per_sm.values()).most_common(1)[0][0]
        ls = [start[i] for i in late]
        print(f"| {name} | {len(recs)} | {len(late)} | {len(per_sm)} | {busiest} / {mean:.2f} ({busiest / mean:.2f}) | "
              f"{common} | {min(ls):.1f}-{max(ls):.1f} | {statistics.median(cyc[i] for i in late):.0f} | {fc:.0f} |")


if __name__ == "__main__":
    main()
