#!/usr/bin/env python3
"""h100-prefillncu's reading: the L2 bytes a vLLM-style fused_moe GEMM at 64 x 64 x 32 moves (every row block reads
its expert's whole weight slab, every column tile reads its row block's 64 padded rows of A) over Nsight Compute's
duration, and that rate over the busiest memory unit's share (the L2 at these points).

    python3 validation/scripts/moe/prefill_l2_traffic.py validation/results/h100-prefillncu/ncu.txt

Row blocks per expert: uniform top-k routing drawn 20 times (seeded), the padded blocks moe_align_block_size makes.
"""
import math
import random
import re
import sys

# (experts, top-k, hidden, expert FFN width): moe_plans.py's
SHAPES = {"mixtral-8x7b": (8, 2, 4096, 14336), "mixtral-8x22b": (8, 2, 6144, 16384),
          "qwen3-30b-a3b": (128, 8, 2048, 768), "deepseek-v2-lite": (64, 6, 2048, 1408)}
BLOCK = 64


def row_blocks(E, k, T, trials=20, seed=0):
    rng = random.Random(seed)
    total = 0
    for _ in range(trials):
        count = [0] * E
        for _ in range(T):
            for e in rng.sample(range(E), k):
                count[e] += 1
        total += sum(math.ceil(c / BLOCK) for c in count)
    return total / trials


def main(path):
    text = open(path).read()
    cases = re.findall(r"^case (\S+) (\S+) T=(\d+) (w13|w2)", text, re.M)
    kernels = re.split(r"\n  _fused_moe_gemm_kernel", text)[1:]
    print("| model | phase | T | GEMM | row blocks | L2 bytes GB | duration us | L2 TB/s | at the busiest unit's 100 % |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for i, (model, phase, T, gemm) in enumerate(cases):
        k2 = kernels[2 * i + 1]  # the second launch (the first compiles; both read alike)
        unit, value = re.search(r"Duration\s+(\w+)\s+([\d.,]+)", k2).groups()
        seconds = float(value.replace(",", "")) * (1e-3 if unit == "ms" else 1e-6)
        busiest = float(re.search(r"\n\s+Memory Throughput\s+%\s+([\d.]+)", k2).group(1)) / 100
        E, topk, d, inter = SHAPES[model]
        n, kdim = (2 * inter, d) if gemm == "w13" else (d, inter)
        blocks = row_blocks(E, topk, int(T))
        moved = blocks * n * kdim * 2 + math.ceil(n / BLOCK) * blocks * BLOCK * kdim * 2
        rate = moved / seconds
        print(f"| {model} | {phase} | {T} | {gemm} | {blocks:.1f} | {moved / 1e9:.2f} | {seconds * 1e6:.0f} | "
              f"{rate / 1e12:.2f} | {rate / busiest / 1e12:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1])
