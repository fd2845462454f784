#!/usr/bin/env python3
"""Every committed FlashAttention-2 decode call (PyTorch SDPA's flash backend, the eager profile's rows of
`perfmodel accuracy`), by card and by grid: split grids alone on their SMs (splits x CTAs <= 132), other split grids,
and the non-split kernel. The split count is FlashAttention-2's rule as flash2_split_count has it
(lib/src/cost/production_decode_cost.cpp). A call measured in two files of one set counts once.

    python3 validation/scripts/production/flash2_decode_groups.py [BINARY] [--calibration FILE]

Prints count, median and p90 |error| and the mean signed error of each group; with --calibration, priced with that
file (for trying a key's value against every committed call; what such a sweep reads is a fit on all of them).
"""
import argparse
import glob
import json
import math
import re
import subprocess


def split_count(ctas, blocks, sms=132):
    slots = 2 * sms
    blocks = max(1, blocks)
    if ctas >= 0.8 * slots:
        return 1
    most = min(slots, blocks, 128)
    eff = lambda s: (ctas * s / slots) / math.ceil(ctas * s / slots)  # noqa: E731
    eligible = lambda s: s == 1 or -(-blocks // s) != -(-blocks // (s - 1))  # noqa: E731
    best = max(eff(s) for s in range(1, most + 1) if eligible(s))
    return next((s for s in range(1, most + 1) if eligible(s) and eff(s) >= 0.85 * best), 1)


def block_keys(d):
    return 256 if d <= 64 else 128 if d <= 128 else 64


def quantile(errors, p):
    e = sorted(abs(x) for x in errors)
    return 100 * e[min(len(e) - 1, int(p * (len(e) - 1) + 0.5))] if e else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default="build/tools/perfmodel/perfmodel")
    ap.add_argument("--calibration")
    a = ap.parse_args()
    groups = {}
    for path in sorted(glob.glob("validation/results/h*/**/kernels*.json", recursive=True)):
        card = "h100-sxm" if "/h100-" in path else "h200"
        args = [a.binary, "accuracy", "--card", card, "--measured", path, "--format", "json"]
        args += ["--calibration", a.calibration] if a.calibration else []
        try:
            out = json.loads(subprocess.run(args, capture_output=True, text=True).stdout)
        except json.JSONDecodeError:
            continue
        for c in out.get("profile_cases", []):
            m = re.search(r"_b(\d+)_ctx(\d+)_h(\d+)_kv(\d+)_d(\d+)", c["name"])
            if c["profile"] != "eager" or "sdpa_flash_decode" not in c["name"] or not m:
                continue
            b, keys, h, kvh, d = map(int, m.groups())
            ctas = b * kvh * -(-(h // kvh) // 64)
            s = split_count(ctas, -(-keys // block_keys(d)))
            grid = "lone split" if s > 1 and ctas * s <= 132 else "split" if s > 1 else "non-split"
            groups.setdefault((card, grid), {})[(path.split("/")[2], c["name"])] = c["error"]
    for key in sorted(groups):
        e = list(groups[key].values())
        print(f"{key[0]:9s} {key[1]:11s} {len(e):4d} calls  {quantile(e, .5):5.1f} / {quantile(e, .9):5.1f} %  "
              f"mean {100 * sum(e) / len(e):+5.1f} %")


if __name__ == "__main__":
    main()
