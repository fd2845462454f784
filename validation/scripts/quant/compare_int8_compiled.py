#!/usr/bin/env python3
"""Predicted against measured for validation/results/h200-int8-compiled (W8A16 under torch.compile,
int8wo_compiled.py): `perfmodel gemm --impl compiled|eager --weight-dtype int8` (three kernels: the
weight's bf16 copy, the bf16 GEMM, the scale) against the kernels' summed durations (torch.profiler) and
against the call's graph replay (kernels plus the idle after each: harness_idle, 0.46 us), and the
bf16 F.linear beside it. Nothing was fitted on this set.

    python3 validation/scripts/quant/compare_int8_compiled.py build/tools/perfmodel/perfmodel
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DIR = os.path.join(ROOT, "validation/results/h200-int8-compiled")
FILES = ("int8wo_compiled.jsonl", "int8wo_eager.jsonl")  # compiled W8A16 + bf16 linear; eager W8A16
IDLE = 0.46e-6  # the GPU idle after one kernel in a single-call graph replay (h200-gemm-chain)


def predict(pm, c, int8, impl="compiled"):
    args = [pm, "gemm", "--card", "h200", "--impl", impl, "--m", str(c["m"]), "--n", str(c["n"]), "--k", str(c["k"]),
            "--format", "json"] + (["--weight-dtype", "int8"] if int8 else [])
    j = json.loads(subprocess.run(args, capture_output=True, text=True, check=True, cwd=ROOT).stdout)
    return j["device_time_s"], len(j.get("kernels", [])) or 1


def q(v, p):
    v = sorted(v)
    pos = p * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def main():
    pm = os.path.abspath(sys.argv[1])
    cases = [c for f in FILES for c in map(json.loads, open(os.path.join(DIR, f))) if c["kind"] == "case" and c.get("ok")]
    errs = {}
    bf16 = {(c["m"], c["n"], c["k"]): c for c in cases if c["implementation"] == "bf16_linear"}
    print("| case | measured kernels (us) | predicted (us) | error | replay error | w8a16 / bf16 measured | predicted |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for c in cases:
        if not c["implementation"].endswith("_w8a16"):
            continue
        impl = c["implementation"].split("_")[0]
        t, _ = predict(pm, c, True, impl)
        kern = sum(k["dur_us"] for k in c["kernels"]) * 1e-6
        nk = len(c["kernels"])
        e_k = t / kern - 1
        e_r = (t + nk * IDLE) / c["measured_s"] - 1
        b = bf16[(c["m"], c["n"], c["k"])]
        tb, _ = predict(pm, b, False)
        e_b = tb / (b["measured_s"] - len(b["kernels"]) * IDLE) - 1
        ratio_m, ratio_p = c["measured_s"] / b["measured_s"], (t + nk * IDLE) / (tb + len(b["kernels"]) * IDLE)
        for key, e in ((f"{impl} w8a16 kernels", e_k), (f"{impl} w8a16 replay", e_r), ("bf16 kernels", e_b),
                       (f"{impl} w8a16 / bf16 ratio", ratio_p / ratio_m - 1)):
            errs.setdefault(key, []).append(abs(e))
        print(f"| {c['name']} | {kern * 1e6:.1f} | {t * 1e6:.1f} | {e_k * 100:+.1f} % | {e_r * 100:+.1f} % | {ratio_m:.2f} | {ratio_p:.2f} |")
    print()
    errs["bf16 kernels"] = errs["bf16 kernels"][: len(errs["bf16 kernels"]) // 2]  # listed once a W8A16 impl
    for k, v in errs.items():
        print(f"{k}: {len(v)} cases, |error| median {statistics.median(v) * 100:.1f} %, p90 {q(v, 0.9) * 100:.1f} %")


if __name__ == "__main__":
    main()
