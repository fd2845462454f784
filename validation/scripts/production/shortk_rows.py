#!/usr/bin/env python3
"""GEMM rows (median / p90 of |pred / meas - 1|, held-out cases) as targets.py computes them, for the
committed sets, the check sets h200-heldout16..20 and branch shortk's sweep (its held-out half:
zlib.crc32(name) % 3 == 0), under the default calibration or one given.

    python3 validation/scripts/production/shortk_rows.py build/tools/perfmodel/perfmodel [CALIBRATION] [--cases]
"""
import json
import subprocess
import sys
import zlib

R = "validation/results/"


def quantile(v, q):
    v = sorted(v)
    if not v:
        return float("nan")
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def cases(pm, path, cal):
    extra = ["--calibration", cal] if cal else []
    out = subprocess.run([pm, "accuracy", "--card", "h200", "--measured", path, "--format", "json"] + extra,
                         capture_output=True, text=True, check=True).stdout
    return [c for c in json.loads(out)["profile_cases"] if c["kernel"] == "gemm"]


def shortk_held(name):
    return zlib.crc32(name.encode()) % 3 == 0


def main():
    pm = sys.argv[1]
    cal = next((a for a in sys.argv[2:] if not a.startswith("--")), None)
    show = "--cases" in sys.argv
    sets = {}
    for n in ("h200-production", "h200-gemm-small", "h200-gemm-chain"):
        cs = cases(pm, R + n + "/kernels.json", cal)
        if n == "h200-gemm-chain":
            for c in cs:
                c["held_out"] = "llama2_7b" in c["name"] or "tinyllama" in c["name"]
        sets[n] = [c for c in cs if c["held_out"]]
    for n in ("h200-heldout16", "h200-heldout17", "h200-heldout18", "h200-heldout19", "h200-heldout20"):
        sets[n] = cases(pm, R + n + "/kernels.json", cal)
    try:
        sk = cases(pm, R + "h200-shortk/kernels.json", cal)
        sets["h200-shortk fit"] = [c for c in sk if not shortk_held(c["name"])]
        sets["h200-shortk held"] = [c for c in sk if shortk_held(c["name"])]
    except Exception as e:  # noqa: BLE001
        print(f"(no shortk sweep: {e})")

    def row(cs, p):
        a = [abs(c["error"]) for c in cs if c["profile"] == p]
        return f"{100 * quantile(a, .5):4.1f} / {100 * quantile(a, .9):4.1f} ({len(a)})"
    committed = [c for n in ("h200-production", "h200-gemm-small", "h200-gemm-chain") for c in sets[n]]
    print(f"{'set':22s} {'fused':18s} {'eager':18s} {'compiled':18s}")
    print(f"{'committed (held out)':22s} " + " ".join(f"{row(committed, p):18s}" for p in ("fused", "eager", "compiled")))
    for n, cs in sets.items():
        print(f"{n:22s} " + " ".join(f"{row(cs, p):18s}" for p in ("fused", "eager", "compiled")))
    if show:
        for n, cs in sets.items():
            for c in cs:
                if c["profile"] == "fused":
                    print(f"{n} {c['name']} {c['error'] * 100:+.1f}")


if __name__ == "__main__":
    main()
