#!/usr/bin/env python3
"""prefillncu's table (validation/results/<card>-prefillncu/README.md): per case of probe_prefill_ncu.py, the second
launch's Nsight Compute duration, DRAM bytes read, those bytes over the GEMM's expert weights (a weight read once =
1.00x), L2 hit rate, the busiest memory unit's share (SpeedOfLight's Memory Throughput), DRAM %, SM %, achieved
occupancy and SM clock. Reads ncu.txt only; prices and fits nothing.

    python3 validation/scripts/moe/prefill_ncu_table.py validation/results/h100-prefillncu/ncu.txt
"""
import re
import sys

# (experts, top-k, hidden, expert FFN width): moe_plans.py's, as prefill_l2_traffic.py
SHAPES = {"mixtral-8x7b": (8, 2, 4096, 14336), "mixtral-8x22b": (8, 2, 6144, 16384),
          "qwen3-30b-a3b": (128, 8, 2048, 768), "deepseek-v2-lite": (64, 6, 2048, 1408)}
UNITS = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3,
         "s": 1, "%": 1, "Ghz": 1e9, "Mhz": 1e6}


def weight_bytes(model, gemm):
    E, _, d, inter = SHAPES[model]
    return E * (2 * inter * d if gemm == "w13" else d * inter) * 2


def metric(block, name):
    """The first '<name>  <unit>  <value>' row of a kernel's report, scaled to SI (value only where no unit)."""
    m = re.search(r"\n\s+" + re.escape(name) + r"\s+(\S+)\s+([\d.,]+)\s*\n", block)
    if m:
        return float(m.group(2).replace(",", "")) * UNITS[m.group(1)]
    m = re.search(r"\n\s+" + re.escape(name) + r"\s+([\d.,]+)\s*\n", block)
    return float(m.group(1).replace(",", ""))


def rows(path):
    text = open(path).read()
    cases = re.findall(r"^case (\S+) (\S+) T=(\d+) (w13|w2)", text, re.M)
    kernels = re.split(r"\n  _fused_moe_gemm_kernel", text)[1:]
    out = []
    for i, (model, phase, T, gemm) in enumerate(cases):
        k = kernels[2 * i + 1]  # the second launch (the first compiles; both read alike)
        dram = metric(k, "dram__bytes_read.sum")
        out.append(dict(model=model, phase=phase, T=int(T), gemm=gemm, us=metric(k, "Duration") * 1e6,
                        dram_gb=dram / 1e9, over=dram / weight_bytes(model, gemm),
                        hit=metric(k, "lts__t_sector_hit_rate.pct"), busiest=metric(k, "Memory Throughput"),
                        dram_pct=metric(k, "DRAM Throughput"), sm_pct=metric(k, "Compute (SM) Throughput"),
                        occ=metric(k, "Achieved Occupancy"), ghz=metric(k, "sm__cycles_elapsed.avg.per_second") / 1e9))
    return out


def main(path):
    print("| model | phase | T | GEMM | duration us | DRAM read GB | over the weights | L2 hit % | busiest memory unit % "
          "| DRAM % | SM % | occupancy % | SM GHz |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows(path):
        print(f"| {r['model']} | {r['phase']} | {r['T']} | {r['gemm']} | {r['us']:.0f} | {r['dram_gb']:.2f} | "
              f"{r['over']:.2f}x | {r['hit']:.1f} | {r['busiest']:.1f} | {r['dram_pct']:.1f} | {r['sm_pct']:.1f} | "
              f"{r['occ']:.1f} | {r['ghz']:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1])
