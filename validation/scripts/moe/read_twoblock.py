#!/usr/bin/env python3
"""twoblock's reading: the grouped GEMMs' CUDA-event medians by picks an expert and layout (FRONT: vLLM's align,
an expert's rows from its first block; EVEN: split equally over its blocks), and Nsight Compute's DRAM bytes over
the expert weights per case.

    python3 validation/scripts/moe/read_twoblock.py validation/results/<card>-twoblock
"""
import json
import os
import re
import sys

MODELS = {"mixtral-8x7b": (8, 2, 4096, 14336), "mixtral-8x22b": (8, 2, 6144, 16384)}


def weight_bytes(model, gemm):
    E, _, d, inter = MODELS[model]
    return E * (2 * inter * d if gemm == "w13" else d * inter) * 2


def times(folder):
    rows = [json.loads(line) for line in open(os.path.join(folder, "time.jsonl"))]
    print("| model | picks an expert | tokens | row blocks | layout | w13 us | w2 us | sum us | FRONT over EVEN |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    even = {(r["model"], r["picks_per_expert"]): r["w13_us"] + r["w2_us"] for r in rows if r["layout"] == "even"}
    for r in rows:
        total = r["w13_us"] + r["w2_us"]
        key = (r["model"], r["picks_per_expert"])
        ratio = f"{total / even[key]:.3f}" if r["layout"] == "front" and key in even else ""
        print(f"| {r['model']} | {r['picks_per_expert']} | {r['tokens']} | {r['blocks']} | {r['layout']} | "
              f"{r['w13_us']:.0f} | {r['w2_us']:.0f} | {total:.0f} | {ratio} |")


def metric(block, name):
    m = re.search(r"\n\s+" + re.escape(name) + r"\s+(\S+)\s+([\d.,]+)", block)
    if not m:
        return None, None
    return m.group(1), float(m.group(2).replace(",", ""))


def scaled(unit, value):
    return value * {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12,
                    "ns": 1e-9, "us": 1e-6, "usecond": 1e-6, "msecond": 1e-3, "ms": 1e-3, "nsecond": 1e-9,
                    "%": 1, "cycle/nsecond": 1e9, "cycle/usecond": 1e6, "Ghz": 1e9, "Mhz": 1e6,
                    "cycle/second": 1, "sector": 1, "Ksector": 1e3, "Msector": 1e6, "Gsector": 1e9}.get(unit, float("nan"))


def ncu_cases(folder):
    """Nsight Compute's second launch per case, in order: dicts of model, picks, layout, gemm, duration_s,
    dram_read_bytes, l2_hit_pct, l2_pct, dram_pct, sm_hz (none where the folder has no ncu.txt)."""
    path = os.path.join(folder, "ncu.txt")
    if not os.path.exists(path):
        return
    text = open(path).read()
    cases = re.findall(r"^case (\S+) c=(\d+) T=(\d+) (\w+) (w13|w2)", text, re.M)
    kernels = re.split(r"\n  _fused_moe_gemm_kernel", text)[1:]
    for i, (model, c, _, layout, gemm) in enumerate(cases):
        if 2 * i + 1 >= len(kernels):
            break
        k = kernels[2 * i + 1]  # the second launch
        yield dict(model=model, picks=int(c), layout=layout, gemm=gemm,
                   duration_s=scaled(*metric(k, "gpu__time_duration.sum")),
                   dram_read_bytes=scaled(*metric(k, "dram__bytes_read.sum")),
                   l2_hit_pct=metric(k, "lts__t_sector_hit_rate.pct")[1],
                   l2_pct=metric(k, "lts__throughput.avg.pct_of_peak_sustained_elapsed")[1],
                   dram_pct=metric(k, "dram__throughput.avg.pct_of_peak_sustained_elapsed")[1],
                   sm_hz=scaled(*metric(k, "sm__cycles_elapsed.avg.per_second")))


def profiles(folder):
    cases = list(ncu_cases(folder))
    if not cases:
        return
    print()
    print("| model | picks an expert | layout | GEMM | duration us | DRAM read GB | over the weights | L2 hit % | "
          "L2 % | DRAM % | SM GHz |")
    print("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for k in cases:
        dram = k["dram_read_bytes"]
        print(f"| {k['model']} | {k['picks']} | {k['layout']} | {k['gemm']} | {k['duration_s'] * 1e6:.0f} | "
              f"{dram / 1e9:.2f} | {dram / weight_bytes(k['model'], k['gemm']):.2f}x | {k['l2_hit_pct']:.1f} | "
              f"{k['l2_pct']:.1f} | {k['dram_pct']:.1f} | {k['sm_hz'] / 1e9:.2f} |")


if __name__ == "__main__":
    times(sys.argv[1])
    profiles(sys.argv[1])
