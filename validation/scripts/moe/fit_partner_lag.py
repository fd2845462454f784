#!/usr/bin/env python3
"""Fits fused_moe's partner-lag share (lib/src/cost/fused_moe_cost.cpp, kPartnerLeadShare) on h200-twoblock's
Nsight Compute DRAM bytes: the FRONT layout's weight re-reads over the EVEN layout's, per GEMM and picks an expert.

    python3 validation/scripts/moe/fit_partner_lag.py [validation/results/h200-twoblock]
    python3 validation/scripts/moe/fit_partner_lag.py --check <twoblock dir> <L2 MiB>   # another card, not fitted

The mechanism (h200-twoblock/README.md): an expert's CTAs at one column tile read the same weight slices. The CTA of
the last, part-filled block (r real rows) loads fewer A rows a K step, BLOCK_M + BLOCK_N against r + BLOCK_N tile rows,
and walks ahead of its full partner by a share of a step each step,
    d = alpha (BLOCK_M - r) / (BLOCK_M + BLOCK_N),
alpha the share of its load deficit that becomes lead (its loads are not all that pace it). After k steps the partner
trails k d steps. The L2 holds the weight slices of the last k0 steps across the card,
    k0 = L2 bytes / (weight tiles in flight x BLOCK_N x BLOCK_K x 2),  weight tiles in flight = resident CTAs / blocks
an expert (an expert's CTAs at one column share a tile), so the partner re-reads the slices of every step past
k0 / d: a share 1 - k0 / (steps d) of its weights, none while steps d <= k0. One parameter, alpha.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from read_twoblock import MODELS, metric, scaled, weight_bytes  # noqa: E402

BM, BN, BK = 64, 64, 32
SMS, CTAS_PER_SM = 132, 8
L2_BYTES = 60 * 2 ** 20  # the H200 (hardware/h200.yaml)


def reread_share(alpha, K, N, picks, l2_bytes=L2_BYTES, sms=SMS):
    """The weight share an expert's full partner re-reads at c picks an expert (every expert alike, FRONT)."""
    r = picks % BM
    blocks = -(-picks // BM)
    if blocks < 2 or r == 0:
        return 0.0
    E = 8
    tiles = E * blocks * (-(-N // BN))
    in_flight = min(tiles, sms * CTAS_PER_SM) / blocks
    k0 = l2_bytes / (in_flight * BN * BK * 2)
    steps = -(-K // BK)
    d = alpha * (BM - r) / (BM + BN)
    return max(0.0, 1.0 - k0 / (steps * d))


def measured(folder):
    text = open(os.path.join(folder, "ncu.txt")).read()
    cases = re.findall(r"^case (\S+) c=(\d+) T=(\d+) (\w+) (w13|w2)", text, re.M)
    kernels = re.split(r"\n  _fused_moe_gemm_kernel", text)[1:]
    dram = {}
    for i, (model, c, _, layout, gemm) in enumerate(cases):
        dram[(model, int(c), layout, gemm)] = scaled(*metric(kernels[2 * i + 1], "dram__bytes_read.sum"))
    out = []
    for (model, c, layout, gemm), front in dram.items():
        if layout != "front" or (model, c, "even", gemm) not in dram or c > 2 * BM:
            continue  # three blocks an expert re-read by GROUP_SIZE_M's straddle in both layouts: not the lag
        extra = (front - dram[(model, c, "even", gemm)]) / weight_bytes(model, gemm)
        _, _, d, inter = MODELS[model]
        N, K = (2 * inter, d) if gemm == "w13" else (d, inter)
        out.append((model, c, gemm, N, K, extra))
    return out


def main(folder):
    points = measured(folder)
    best = min((sum((reread_share(a / 1000, K, N, c) - x) ** 2 for _, c, _, N, K, x in points), a / 1000)
               for a in range(100, 2001))
    alpha = best[1]
    print(f"alpha = {alpha:.3f} (least squares over {len(points)} GEMMs, h200-twoblock's ncu.txt)")
    print("| model | picks an expert | GEMM | K steps | measured re-read | fitted |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    for model, c, gemm, N, K, x in points:
        print(f"| {model} | {c} | {gemm} | {-(-K // BK)} | {x:.2f} | {reread_share(alpha, K, N, c):.2f} |")


def check(folder, l2_mib, alpha=0.508):
    """Another card's twoblock read against the committed share (alpha, fitted on the H200), k0 by that card's L2."""
    points = measured(folder)
    print(f"| model | picks an expert | GEMM | measured re-read | priced at {l2_mib} MiB | at the H200's 60 MiB |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    diffs = []
    for model, c, gemm, N, K, x in points:
        p = reread_share(alpha, K, N, c, l2_bytes=l2_mib * 2 ** 20)
        diffs.append(abs(p - x))
        print(f"| {model} | {c} | {gemm} | {x:.2f} | {p:.2f} | {reread_share(alpha, K, N, c):.2f} |")
    diffs.sort()
    print(f"\n{len(diffs)} GEMMs; |priced - measured| median {diffs[len(diffs) // 2]:.2f}, largest {diffs[-1]:.2f}")


if __name__ == "__main__" and sys.argv[1:2] == ["--check"]:
    check(sys.argv[2], float(sys.argv[3]))
elif __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "results", "h200-twoblock"))
