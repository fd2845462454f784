#!/usr/bin/env python3
"""The fused profile's decode attention in h200-fused-step-cudnn's steps, and the step guard (branch blockdef).

    python3 validation/scripts/production/blockdef_decode_attention.py [perfmodel] [calibration.yaml]

Per decode point (60, measure()'s replays; none fitted on): the attention category's kernel sum
(profiler, cuDNN's ..._16x128x<d>_1x4x1 kernel plus lean_reduction_kernel when split) against the
priced attention op, split by whether the step's CTAs (batch x KV heads, one per 16 query rows of a
KV head's group) outnumber the H200's 132 SMs; then every step (72) against the graph replay, as
tests/test_graph_gap_accuracy.cpp checks h200-fused-step-cudnn (median <= 2.2 %, p90 <= 4.8 %).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_fused_step as c  # noqa: E402

DATA = "validation/results/h200-fused-step-cudnn/results.jsonl"
KV_HEADS = {"tinyllama-1.1b": 4, "llama3-8b": 8, "qwen2.5-7b": 4, "mistral-7b": 8}
SMS = 132


def quantile(v, f):
    """Linear interpolation between order statistics (perfmodel's quantile, lib/include/perfmodel/stats.hpp, as the test uses)."""
    v = sorted(v)
    x = f * (len(v) - 1)
    i = int(x)
    return v[i] if i + 1 >= len(v) else v[i] + (x - i) * (v[i + 1] - v[i])


def main(binary, cal):
    pts = [r for r in c.load(DATA) if r.get("kind") == "point" and r.get("ok")]
    if cal:
        c.CALIBRATION[:] = ["--calibration", cal]
    rows = c.compare(pts, binary)
    print("| point | CTAs | attention priced / measured (us) | error | step error |")
    print("| --- | ---: | ---: | ---: | ---: |")
    many, few = [], []
    for y in rows:
        p = y["point"]
        if p["phase"] != "decode":
            continue
        ctas = p["batch"] * KV_HEADS[p["model"]]
        e = y["pred"]["attention"] / y["meas"]["attention"] - 1
        (many if ctas > SMS else few).append(e)
        print(f"| {p['model']} b{p['batch']} ctx{p['ctx']} | {ctas} | {y['pred']['attention'] * 1e6:.0f} / "
              f"{y['meas']['attention'] * 1e6:.0f} | {e:+.1%} | {y['graph_err']:+.1%} |")
    print()
    for name, v in ((f"decode attention, CTAs > {SMS}", many), (f"decode attention, CTAs <= {SMS}", few)):
        print(f"{name}: {len(v)} points, median abs {statistics.median(abs(x) for x in v):.2%}, "
              f"mean signed {statistics.mean(v):+.2%}, max abs {max(abs(x) for x in v):.2%}")
    for name, sel in (("steps, all 72", lambda p: True), ("steps, decode 60", lambda p: p["phase"] == "decode"),
                      ("steps, prefill 12", lambda p: p["phase"] == "prefill")):
        errs = [abs(y["graph_err"]) for y in rows if sel(y["point"])]
        print(f"{name}: median abs {quantile(errs, 0.5):.2%}, p90 abs {quantile(errs, 0.9):.2%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel", sys.argv[2] if len(sys.argv) > 2 else "")
