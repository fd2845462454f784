#!/usr/bin/env python3
"""Branch gemmtile: the GEMM rows of docs/targets.md (held-out cases, as targets.py holds them) and the check
sets' GEMM rows, for one perfmodel binary and optionally a calibration file.

    python3 validation/scripts/production/gemmtile_rows.py build/tools/perfmodel/perfmodel [calibration.yaml]

Rows: the committed sets (h200-production and h200-gemm-small odd indices, h200-gemm-chain's Llama-2-7B and
TinyLlama chains), h200-shortk's held-out third (crc32 % 3 == 0), h200-heldout16..22 (every case; checks:
nothing fitted on them). median / p90 of |predicted / measured - 1|, per profile.
"""
import json
import os
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from targets import quantile  # noqa: E402

R = "validation/results/"


def cases(binary, path, calib):
    extra = ["--calibration", calib] if calib else []
    out = subprocess.run([binary, "accuracy", "--card", "h200", "--measured", path, "--format", "json"] + extra,
                         capture_output=True, text=True, check=True).stdout
    return [c for c in json.loads(out)["profile_cases"] if c["kernel"] == "gemm"]


def fmt(errors):
    a = [abs(e) for e in errors]
    if not a:
        return "-"
    return f"{100 * quantile(a, 0.5):.1f} / {100 * quantile(a, 0.9):.1f} ({len(a)})"


def main():
    binary = sys.argv[1]
    calib = sys.argv[2] if len(sys.argv) > 2 else None
    rows = {}
    committed = {p: [] for p in ("fused", "eager", "compiled")}
    for name in ("h200-production", "h200-gemm-small", "h200-gemm-chain"):
        for c in cases(binary, R + name + "/kernels.json", calib):
            held = (("llama2_7b" in c["name"] or "tinyllama" in c["name"]) if name == "h200-gemm-chain"
                    else c["held_out"])
            if held:
                committed[c["profile"]].append(c["error"])
    rows["committed (production, gemm-small, gemm-chain; held out)"] = committed
    extra = [("h200-shortk (held-out third)", "h200-shortk", lambda c: zlib.crc32(c["name"].encode()) % 3 == 0)]
    if os.path.exists(R + "h200-gemmtile/sweep/kernels.json"):
        extra.append(("h200-gemmtile sweep (held-out half)", "h200-gemmtile/sweep", lambda c: zlib.crc32(c["name"].encode()) % 2 == 1))
        extra.append(("h200-gemmtile sweep (fit half)", "h200-gemmtile/sweep", lambda c: zlib.crc32(c["name"].encode()) % 2 == 0))
    for n in (16, 17, 18, 19, 20, 21, 22):
        extra.append((f"h200-heldout{n}" + (" (studied)" if n == 18 else " (check)"), f"h200-heldout{n}", lambda c: True))
    for label, name, keep in extra:
        r = {p: [] for p in ("fused", "eager", "compiled")}
        for c in cases(binary, R + name + "/kernels.json", calib):
            if keep(c):
                r[c["profile"]].append(c["error"])
        rows[label] = r
    print("| set | fused | eager | compiled |")
    print("|---|---|---|---|")
    for label, r in rows.items():
        print(f"| {label} | {fmt(r['fused'])} | {fmt(r['eager'])} | {fmt(r['compiled'])} |")


if __name__ == "__main__":
    main()
