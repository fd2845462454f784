#!/usr/bin/env python3
"""bigncu's reading (validation/results/bigncu): per fused_moe kernel under Nsight Compute, its time, SM clock, the
tensor pipe's busy share, DRAM bytes read over the touched experts' weights, DRAM and L2 throughput, the L2 hit rate.

    python3 validation/scripts/moe/read_bigncu.py validation/results/<card>-bigncu
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_decodencu import launches  # noqa: E402


def main(folder):
    print("| model | tokens | config | GEMM | tile | us | SM GHz | tensor pipe % (hmma) | DRAM read GB / weights | "
          "DRAM write GB | DRAM % | L2 % | L2 hit % |")
    print("| --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r, g, _, weights, k in launches(folder):
        print(f"| {r['model']} | {r['tokens']} | {r['config']} | {g} | {r['BM']}x{r['BN']}x{r['BK']} s{r['stages']} | "
              f"{k['gpu__time_duration.sum'] * 1e6:.0f} | {k['sm__cycles_elapsed.avg.per_second'] / 1e9:.2f} | "
              f"{k.get('sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active', 0):.1f} | "
              f"{k['dram__bytes_read.sum'] / 1e9:.2f} / {weights / 1e9:.2f} | {k['dram__bytes_write.sum'] / 1e9:.2f} | "
              f"{k['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.1f} | "
              f"{k['lts__throughput.avg.pct_of_peak_sustained_elapsed']:.1f} | {k['lts__t_sector_hit_rate.pct']:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1])
