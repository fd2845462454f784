#!/usr/bin/env python3
"""Branch splitk (issue 10): the fused GEMM block's split-K errors, split / unsplit, per set, and the fit of
the 4-CTA cluster split grid's fixed tail (cublaslt_split.hpp kClusterSplitTail). Committed data only.

    python3 validation/scripts/production/splitk_tail.py PERFMODEL            # the table for the binary as built
    python3 validation/scripts/production/splitk_tail.py PERFMODEL --fit      # rms log error on the fit side per tail

--fit reruns `perfmodel accuracy` with SPLITK_TAIL=<us> in the environment (an override the branch's binary
read while fitting; the committed binary has the fitted constant and ignores it). The fit side is the fused
block's (compiled17's): h200-production and h200-gemm-small even cases, h200-gemm-chain's Llama-3-8B and
Qwen2.5-7B. Held out: the odd cases, the Llama-2-7B and TinyLlama chains; h200-heldout16 / h200-heldout17
are checks, never fitted.
"""
import json
import math
import os
import statistics as st
import subprocess
import sys

SETS = ["h200-production", "h200-gemm-small", "h200-gemm-chain", "h200-heldout16", "h200-heldout17"]
FIT_SETS = SETS[:3]
TAILS = (0.0, 0.4, 0.6, 0.8, 1.0, 1.1, 1.15, 1.2, 1.25, 1.3, 1.4, 1.6, 2.0)


def cases(pm, s, tail=None):
    env = dict(os.environ)
    if tail is not None:
        env["SPLITK_TAIL"] = str(tail)
    out = subprocess.run([pm, "accuracy", "--card", "h200", "--measured", f"validation/results/{s}/kernels.json",
                          "--format", "json"], capture_output=True, text=True, check=True, env=env).stdout
    names = {c["name"]: c for c in json.load(open(f"validation/results/{s}/kernels.json"))["cases"]}
    rows = []
    for c in json.loads(out)["profile_cases"]:
        if c["profile"] != "fused" or c["kernel"] != "gemm":
            continue
        kn = names.get(c["name"], {}).get("kernel_names") or []
        split = any("splitK" in x for x in kn)
        if s == "h200-gemm-chain":
            fit = "llama3_8b" in c["name"] or "qwen25_7b" in c["name"]
        elif s in FIT_SETS:
            fit = not c["held_out"]
        else:
            fit = False
        rows.append(dict(name=c["name"], split=split, fit=fit, err=c["error"]))
    return rows


def stats(e):
    if not e:
        return "  -"
    a = sorted(abs(x) for x in e)
    return (f"n={len(e):3d} mean {100 * st.mean(e):+5.1f} median {100 * st.median(e):+5.1f} "
            f"|med| {100 * st.median(a):4.1f} p90 {100 * a[min(len(a) - 1, int(0.9 * len(a)))]:4.1f}")


def table(pm, tail=None):
    for s in SETS:
        rows = cases(pm, s, tail)
        for side in ("fit", "held"):
            sel = [r for r in rows if r["fit"] == (side == "fit")]
            if not sel:
                continue
            for kind in ("split", "unsplit"):
                e = [r["err"] for r in sel if r["split"] == (kind == "split")]
                print(f"{s:16s} {side:4s} {kind:7s} {stats(e)}")


def fit(pm):
    for tail in TAILS:
        fit_e, held_e = [], []
        for s in FIT_SETS:
            for r in cases(pm, s, tail):
                (fit_e if r["fit"] else held_e).append(r["err"])
        rms = lambda e: math.sqrt(st.mean(math.log1p(x) ** 2 for x in e))
        med = lambda e: st.median(abs(x) for x in e)
        print(f"tail {tail:4.2f} us: fit rms log {100 * rms(fit_e):6.3f} % median {100 * med(fit_e):4.2f} % ({len(fit_e)})"
              f" | held out median {100 * med(held_e):4.2f} % ({len(held_e)})")


if __name__ == "__main__":
    pm = sys.argv[1]
    if "--fit" in sys.argv:
        fit(pm)
    else:
        table(pm)
