#!/usr/bin/env python3
"""Reads a lonesplit run (validation/results/<card>-lonesplit): each call's measured time (kernels.json, graph replay)
beside its two kernels' device times (kernel_split.json, torch.profiler) and perfmodel's price, then a least-squares
line of each kernel's time against the split count, lone grids (splits x CTAs <= SMs) and the 256-CTA contrast grids
apart. The question it answers (validation/results/lonesplit/README.md): does the per-split cost sit in the combine
(flash_fwd_splitkv_combine_kernel's walk over the splits) or in the split kernel, and is it the same on both kinds of
grid? Then the call's time outside its two kernels (the gap: the replayed call less their device times) against the
split kernel's grid (CTAs x splits), within a wave of two CTAs an SM and past it (flash2.split_gap_per_cta; --set
splitgap reads a splitgap run, validation/results/splitgap/README.md).

    python3 validation/scripts/production/lonesplit_table.py validation/results/h200-lonesplit [BINARY] [--card h200]
        [--set lonesplit|splitgap]
"""
import argparse
import json
import os
import re
import subprocess

from flash2_decode_groups import block_keys, split_count


def line(points):
    """Least-squares intercept and slope of (x, y) points; (nan, nan) below two distinct x."""
    n = len(points)
    if n < 2 or len({x for x, _ in points}) < 2:
        return float("nan"), float("nan")
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    return my - slope * mx, slope


def kernel_parts(times):
    """(split kernel, combine, everything else) device us from one call's [name, us] list."""
    split = sum(t for n, t in times if "splitkv_kernel" in n)
    combine = sum(t for n, t in times if "combine" in n)
    return split, combine, sum(t for _, t in times) - split - combine


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("binary", nargs="?", default="build/tools/perfmodel/perfmodel")
    ap.add_argument("--card", help="h200 or h100-sxm (default: from the directory's name)")
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--set", default="lonesplit", help="the run's set folder: lonesplit (default) or splitgap")
    a = ap.parse_args()
    card = a.card or ("h100-sxm" if "h100" in a.results else "h200")
    measured = os.path.join(a.results, a.set, "kernels.json")
    out = subprocess.run([a.binary, "accuracy", "--card", card, "--measured", measured, "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    priced = {c["name"]: c for c in json.loads(out)["profile_cases"] if c["profile"] == "eager"}
    with open(os.path.join(a.results, a.set, "kernel_split.json")) as f:
        parts = {p["name"]: kernel_parts(p["kernel_times_us"]) for p in json.load(f)["profiles"]}
    print("| call (b, heads, kv heads, keys, d) | CTAs | splits | measured (us) | split kernel | combine | other | gap | "
          "priced (us) | error |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    fits, gaps = {}, {}
    for name, c in sorted(priced.items(), key=lambda kv: kv[0]):
        m = re.search(r"_b(\d+)_ctx(\d+)_h(\d+)_kv(\d+)_d(\d+)", name)
        if not m or name not in parts:
            continue
        b, keys, h, kvh, d = map(int, m.groups())
        ctas = b * kvh * -(-(h // kvh) // 64)
        s = split_count(ctas, -(-keys // block_keys(d)), a.sms)
        split, combine, other = parts[name]
        grid = "lone" if ctas * s <= a.sms else "contrast"
        for kernel, us in (("split kernel", split), ("combine", combine), ("call", c["measured_s"] * 1e6)):
            fits.setdefault((grid, d, kernel), []).append((s, us))
        gap = c["measured_s"] * 1e6 - split - combine - other
        gaps.setdefault("within a wave" if ctas * s <= 2 * a.sms else "past a wave", []).append((ctas * s, gap))
        print(f"| {b}, {h}, {kvh}, {keys}, {d} | {ctas} | {s} | {c['measured_s'] * 1e6:.1f} | {split:.1f} | "
              f"{combine:.1f} | {other:.1f} | {gap:.1f} | {c['predicted_s'] * 1e6:.1f} | {100 * c['error']:+.1f} % |")
    print("\nleast-squares lines, us = a + b x splits (grid, head dim, what):")
    for key in sorted(fits):
        a0, b0 = line(fits[key])
        print(f"  {key[0]:8s} d{key[1]:<3d} {key[2]:12s} {len(fits[key]):2d} calls  a = {a0:6.2f} us  b = {b0:.3f} us")
    print("\nthe gap against the grid, us = a + b x CTAs (b in ns a CTA):")
    for key in sorted(gaps):
        a0, b0 = line(gaps[key])
        print(f"  {key:14s} {len(gaps[key]):2d} calls  a = {a0:6.2f} us  b = {1e3 * b0:.2f} ns")
    a0, b0 = line([p for v in gaps.values() for p in v])
    print(f"  {'every grid':14s} {sum(map(len, gaps.values())):2d} calls  a = {a0:6.2f} us  b = {1e3 * b0:.2f} ns")


if __name__ == "__main__":
    main()
