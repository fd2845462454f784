#!/usr/bin/env python3
"""Fits the two prefill terms of the fused profile's MoE routing kernels on h200-moe8's token
sweep (branch moe8) and prints every case against the binary's price, fit and held out.

Usage: python3 validation/scripts/moe/fit_moe8_routing.py [perfmodel binary] [results dir] [calibration] [before binary]

- top-k (lib/src/kernels/moe_topk.cpp, kTopkCtaCycles): the stand-in launches one 1-warp program a
  token; past decode the SMs take them at a fixed rate: cycles of one SM a program = median over the
  fit cases of (measured top-k - the binary's price at T = 1, one program's chain) x SMs x clock / T.
- align scatter (lib/src/kernels/moe_permute.cpp, kScatterSecondsPerPick): a returning atomic a
  pick: median over the fit cases of (measured scatter - measured scatter at T = 1) / (picks - k).
Fit cases: Mixtral-8x7B's and Qwen3-30B-A3B's T = 256, 1024, 4096, 16384 (8); held out: their
other T, DeepSeek-V2-Lite's (64 experts, k 6) and the 256-expert k 8 sweep (DeepSeek-V3's router
shape), and h200-moe-fused2's 2048-token prefills (fit_moe_routing.py prints those). The align
plan's compare cost is counted from the PTX (4.7 instructions a compare), not fitted here.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_fused import moe_ops, run_json  # noqa: E402

CLOCK, SMS = 1.98e9, 132            # hardware/h200.yaml
# DeepSeek-V3 fits the card only sharded: its routing ops are the same at TP 8 (the router and the
# align over all 256 experts), so it is priced at TP 8 with fp8 weights.
MODEL = {"deepseek-v3-256e": ("deepseek-v3", "--tp", "8", "--weight-dtype", "fp8")}
FIT_MODELS, FIT_T = ("mixtral-8x7b", "qwen3-30b-a3b"), (256, 1024, 4096, 16384)


def priced(binary, calibration, model, T):
    args = (["decode", "--batch", "1", "--ctx", "512"] if T == 1 else ["prefill", "--batch", "1", "--ctx", str(T)])
    ops = moe_ops(run_json(binary, *args, "--model", *MODEL.get(model, (model,)), "--impl", "fused",
                           "--calibration", calibration))
    return (next(t for n, (_, t) in ops.items() if n.endswith(".topk")),
            next(t for n, (_, t) in ops.items() if n.endswith(".align")))


def med(c, key):
    return c[key]["median"]


def summary(label, v):
    v = [abs(x) for x in v]
    return f"{label}: {statistics.median(v):.1%} median, {max(v):.1%} max ({len(v)})" if v else f"{label}: -"


def main(binary, folder, calibration, before):
    cases = [c for c in json.load(open(os.path.join(folder, "hf.json")))["routing_cases"] if c.get("ok")]
    one = {c["model"]: c for c in cases if c["tokens"] == 1}
    rows = []
    for c in cases:
        m = c["model"]
        tk, al = priced(binary, calibration, m, c["tokens"])
        tk0, al0 = priced(before, calibration, m, c["tokens"]) if before else (None, None)
        fit = m in FIT_MODELS and c["tokens"] in FIT_T
        rows.append(dict(c=c, fit=fit, tk=tk, al=al, tk0=tk0, al0=al0, m_tk=med(c, "topk_softmax_s"),
                         m_al=med(c, "align_plan_s") + med(c, "align_scatter_s"),
                         chain=priced(binary, calibration, m, 1)[0]))
    fit = [r for r in rows if r["fit"]]
    cta = statistics.median((r["m_tk"] - r["chain"]) * SMS * CLOCK / r["c"]["tokens"] for r in fit)
    pick = statistics.median((med(r["c"], "align_scatter_s") - med(one[r["c"]["model"]], "align_scatter_s")) /
                             (r["c"]["picks"] - one[r["c"]["model"]]["picks"]) for r in fit)
    print(f"# {len(fit)} fit cases: top-k {cta:.0f} cycles of an SM a program, scatter {pick * 1e9:.3f} ns a pick")
    print("| model | E | k | T | set | top-k us | priced | err | before | align (plan + scatter) us | priced | err | before |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    errs = {}
    for r in rows:
        c = r["c"]
        et, ea = r["tk"] / r["m_tk"] - 1, r["al"] / r["m_al"] - 1
        b = (f"{r['tk0'] / r['m_tk'] - 1:+.1%}", f"{r['al0'] / r['m_al'] - 1:+.1%}") if r["tk0"] else ("", "")
        s = "fit" if r["fit"] else "held out"
        print(f"| {c['model']} | {c['experts']} | {c['top_k']} | {c['tokens']} | {s} | {r['m_tk'] * 1e6:.2f} | "
              f"{r['tk'] * 1e6:.2f} | {et:+.1%} | {b[0]} | {r['m_al'] * 1e6:.2f} | {r['al'] * 1e6:.2f} | {ea:+.1%} | {b[1]} |")
        phase = "decode" if c["tokens"] <= 64 else "prefill"
        for kind, e, e0 in (("top-k", et, r["tk0"] and r["tk0"] / r["m_tk"] - 1),
                            ("align", ea, r["al0"] and r["al0"] / r["m_al"] - 1)):
            errs.setdefault((kind, s, phase), []).append(e)
            if r["tk0"]:
                errs.setdefault((kind, s, phase, "before"), []).append(e0)
    print()
    for key in sorted(errs):
        print("- " + summary(" ".join(key), errs[key]))


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", "..", ".."))
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build/tools/perfmodel/perfmodel"),
         sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "validation/results/h200-moe8"),
         sys.argv[3] if len(sys.argv) > 3 else os.path.join(root, "hardware/h200.calibration.yaml"),
         sys.argv[4] if len(sys.argv) > 4 else None)
