#!/usr/bin/env python3
"""Fits fused_moe's L2 tile rate (hardware/h200.calibration.yaml, profiles: fused: fused_moe: l2_tile_rate) on the one
prefill of h200-moe-fused2's fit points (Mixtral-8x7B, 2048 tokens) and prints the L2 term against every prefill that
was not fitted on: the H200's other two, and the H100's (h100-moeh100, h100-moeh100b) with the rate carried by the L2's
size (lib/src/catalogue/calibration_transfer.cpp).

    python3 validation/scripts/moe/fit_fused_moe_l2.py

Why an L2 term (h100-prefillncu, Nsight Compute): at 64 x 64 x 32 tiles (BLOCK_K 32, half a 128-byte line a K step)
the prefill GEMMs keep the L2 84-94 % busy and the SMs 25-29 %. Every CTA K step loads a BLOCK_M x BLOCK_K tile of
A (the padded rows too) and a BLOCK_K x BLOCK_N tile of weights through the L2:
    L2 bytes = row blocks x column blocks x K x (BLOCK_M + BLOCK_N) x 2,
row blocks = sum over experts of ceil(rows routed to it / BLOCK_M), expected under uniform top-k routing (each
expert's rows Binomial(T, k / E)). lib/src/kernels/grouped_gemm.cpp's expected_row_blocks computes the same.
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "..", "..", "results")
FLOOR = 2.0e-6  # fused_moe floor a launch (h200.calibration.yaml)
L2_BYTES = {"h200": 60.0, "h100-sxm": 50.0}  # MiB, hardware/*.yaml
SETS = (("h200-moe-fused2", "h200"), ("h100-moeh100", "h100-sxm"), ("h100-moeh100b", "h100-sxm"))


def expected_ceil_blocks(T, p, block):
    """E[ceil(c / block)] for c ~ Binomial(T, p), over the pmf's +-12 sigma window."""
    if p >= 1:
        return math.ceil(T / block)
    mu, sd = T * p, math.sqrt(T * p * (1 - p))
    lo, hi = max(0, int(mu - 12 * sd) - 2), min(T, int(mu + 12 * sd) + 2)
    lg = math.lgamma(T + 1)
    total = 0.0
    for c in range(lo, hi + 1):
        logp = lg - math.lgamma(c + 1) - math.lgamma(T - c + 1) + c * math.log(p) + (T - c) * math.log1p(-p)
        total += math.exp(logp) * math.ceil(c / block)
    return total


def expected_row_blocks(E, k, T, block):
    return E * expected_ceil_blocks(T, k / E, block)


def l2_bytes(c):
    E, k, d, inter, T = c["experts"], c["top_k"], c["hidden"], c["expert_intermediate"], c["tokens"]
    blocks = expected_row_blocks(E, k, T, 64)
    return sum(blocks * math.ceil(n / 64) * K * (64 + 64) * 2 for n, K in ((2 * inter, d), (d, inter)))


def half_line_cases(folder):
    for c in json.load(open(os.path.join(RESULTS, folder, "hf.json")))["moe_cases"]:
        if c["ok"] and c["tokens"] > c["experts"]:  # vLLM's 64 x 64 x 32 default tile
            g = sum(x["device_s"] for x in c["kernel_device_s"] if x["name"].startswith("_fused_moe_gemm_kernel"))
            yield c, g


def main():
    fit = [(c, g) for c, g in half_line_cases("h200-moe-fused2") if c["phase"] == "prefill" and
           c["model"] == "mixtral-8x7b"]
    (c0, g0), = fit
    rate = l2_bytes(c0) / (g0 - 2 * FLOOR)
    print(f"l2_tile_rate: {rate / 1e9:.0f} GB/s  (fitted on h200-moe-fused2 mixtral-8x7b prefill 2048: "
          f"{l2_bytes(c0) / 1e9:.2f} GB in {g0 * 1e6:.0f} us)\n")
    print("| set | model | phase | T | row blocks | padded rows measured | L2 GB | measured us | L2 term us | err |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for folder, card in SETS:
        r = rate * L2_BYTES[card] / L2_BYTES["h200"]
        for c, g in half_line_cases(folder):
            blocks = expected_row_blocks(c["experts"], c["top_k"], c["tokens"], 64)
            pred = l2_bytes(c) / r + 2 * FLOOR
            tag = " (fit)" if (c is c0) else ""
            print(f"| {folder} | {c['model']} | {c['phase']}{tag} | {c['tokens']} | {blocks:.1f} | "
                  f"{c.get('probe_padded_rows', 0) / 64:.1f} | {l2_bytes(c) / 1e9:.2f} | {g * 1e6:.0f} | "
                  f"{pred * 1e6:.0f} | {100 * (pred / g - 1):+.1f}% |")


if __name__ == "__main__":
    main()
