#!/usr/bin/env python3
"""Branch fp8tf32: cuBLAS's sm90 xmma tf32 kernels' own fixed time, scanned and reported.

    python3 validation/results/h200-fp8tf32/tf32_fixed.py PERFMODEL [--scan]

Every tf32 F.linear case (name has `tf32`) of h200-tf3217 (even case index: the fit half, as branch
tf32rule's), h200-heldgemm17, h200-production, h200-heldout16 / 17 / 18, priced by `perfmodel accuracy`
(eager profile), split into the calls the xmma rule prices (M >= 17) and the rest. --scan: the binary
reads XMMA_FIXED_US (a development override of xmma_tf32_fixed_s, not in the committed build).
"""
import json
import os
import statistics
import subprocess
import sys

R = "validation/results/"
SETS = ["h200-tf3217", "h200-heldgemm17", "h200-production", "h200-heldout16", "h200-heldout17", "h200-heldout18"]


def p90(v):
    v = sorted(v)
    q = (len(v) - 1) * 0.9
    return v[int(q)] + (v[min(int(q) + 1, len(v) - 1)] - v[int(q)]) * (q - int(q))


def errors(binary, env=None):
    out = {}
    for s in SETS:
        cases = json.load(open(R + s + "/kernels.json"))["cases"]
        idx = {c["name"]: i for i, c in enumerate(cases)}
        ms = {c["name"]: c["m"] for c in cases}
        res = json.loads(subprocess.run([binary, "accuracy", "--card", "h200", "--measured", R + s + "/kernels.json",
                                         "--format", "json"], capture_output=True, text=True, check=True,
                                        env=dict(os.environ, **(env or {}))).stdout)
        for c in res["profile_cases"]:
            if c["profile"] != "eager" or "tf32" not in c["name"]:
                continue
            g = s
            if s == "h200-tf3217":
                g += " even (fit)" if idx[c["name"]] % 2 == 0 else " odd"
            g += " M>=17" if ms[c["name"]] >= 17 else " M<17"
            out.setdefault(g, []).append(c["error"])
    return out


def line(e):
    a = [abs(x) for x in e]
    return f"{len(a):3d}  median {100 * statistics.median(a):5.1f} %  p90 {100 * p90(a):5.1f} %  mean {100 * statistics.mean(e):+5.1f} %"


def main():
    binary = sys.argv[1]
    if "--scan" in sys.argv:
        for us in (0, 1, 1.5, 2, 2.5, 3, 3.5, 4):
            e = errors(binary, {"XMMA_FIXED_US": str(us)})
            fit = e["h200-tf3217 even (fit) M>=17"]
            print(f"{us:4.1f} us: fit half sum sq log {sum(__import__('math').log(1 + x) ** 2 for x in fit):.4f}  {line(fit)}")
    for g, e in sorted(errors(binary).items()):
        print(f"  {g:34s} {line(e)}")


if __name__ == "__main__":
    main()
