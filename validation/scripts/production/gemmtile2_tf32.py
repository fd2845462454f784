#!/usr/bin/env python3
"""Branch gemmtile2: cuBLAS's sm90 xmma tf32 calls of every committed kernel set (and the gemmtile sweep), read
per tile: the measured time less 4 us fixed (the fused block's fixed + xmma_tf32_fixed) over K / 1024, per tile an SM,
two ways: whole waves (ceil(tiles / 132)) and in proportion to the tiles (tiles / 132).

    python3 validation/scripts/production/gemmtile2_tf32.py [TILE]     # TILE e.g. 128x128 (tokens x weight rows)

xmma's tilesize{tm}x{tn} has tm along the tokens (xmma_tf32.hpp). Nothing is fitted here.
"""
import glob
import json
import re
import sys

SMS = 132
FIXED_US = 4.0


def main():
    want = sys.argv[1] if len(sys.argv) > 1 else "128x128"
    files = sorted(glob.glob("validation/results/*/kernels.json")) + ["validation/results/h200-gemmtile/sweep/kernels.json"]
    print("| set | M x N x K | tiles | segment-K | clock MHz | us per tile an SM per 1024 of K: whole waves | proportional |")
    print("|---|---|---|---|---|---|---|")
    for f in files:
        try:
            cases = json.load(open(f))["cases"]
        except (ValueError, KeyError):
            continue
        for c in cases:
            if not c.get("ok") or c.get("kernel") != "gemm":
                continue
            s = " ".join(c.get("kernel_names") or [])
            m = re.search(r"xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize(\d+)x(\d+)x32", s)
            if not m or f"{m.group(1)}x{m.group(2)}" != want:
                continue
            tm, tn = int(m.group(1)), int(m.group(2))
            batch = max(1, c.get("batch") or 1)
            tiles = -(-c["m"] // tm) * -(-c["n"] // tn) * batch
            if tiles < 100:
                continue
            t = c["measured_s"] * 1e6 - FIXED_US
            per_k = c["k"] / 1024
            print(f"| {f.split('/')[2]}{'/sweep' if 'sweep' in f else ''} | {c['m']} x {c['n']} x {c['k']} | {tiles} | "
                  f"{'on' if 'segment_k_on' in s else 'off'} | {c.get('sm_clock_mhz_min')}-{c.get('sm_clock_mhz_max')} | "
                  f"{t / -(-tiles // SMS) / per_k:.1f} | {t / (tiles / SMS) / per_k:.1f} |")


if __name__ == "__main__":
    main()
