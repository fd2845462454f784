#!/usr/bin/env python3
"""The fused profile's 12 prefill steps of h200-fused-step-alone by kernel category (branch gemm16).

    python3 validation/scripts/production/gemm16_prefill_categories.py [calibration.yaml] [perfmodel]

Per point: the GPU-alone replay's error (compare_fused_alone.py's: step.time_s - step.host_time_s
against spin_first_s), then per category (compare_fused_step.py's OP_CATEGORY / fused_categories.py)
the predicted ops' kernel time against the profiler's kernels of that category (priced / measured, us),
and the step's error were that one category priced as measured ("if exact"). The measured "other"
(cuDNN's Memset node beside each attention kernel) has no predicted op: the attention op's price
covers it (its call floor was fitted on h200-production's calls, which time the Memset with it).
Ends with the prefill median |error| (test_graph_gap_accuracy's bound: 2.5 %) as is and with each
category exact.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_fused_step as c  # noqa: E402

DATA = "validation/results/h200-fused-step-alone/results.jsonl"
SPIN_REST = os.environ.get("SPIN_REST", "0.003")  # fused_replay_probe.py's spin(3e-3); "0": back to back


def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


def main(cal, binary):
    if cal:
        c.CALIBRATION[:] = ["--calibration", cal]
    pts = [r for r in c.load(DATA) if r.get("kind") == "point" and r.get("ok") and r["phase"] == "prefill"]
    tmp = tempfile.mkdtemp()
    cats = c.CATEGORIES[:5]
    errs, exact = [], {k: [] for k in cats + ("attention+other",)}
    print("| point | error | " + " | ".join(f"{k} us (if exact)" for k in cats) + " | other us |")
    print("| --- | ---: |" + " ---: |" * (len(cats) + 1))
    for p in pts:
        d = c.predict(binary, p, tmp, ("--gpu-rest", SPIN_REST))  # the replay behind its 3 ms spin (gemmdef)
        s = d["step"]
        pred = {k: 0.0 for k in c.CATEGORIES}
        for o in d["ops"]:
            pred[c.OP_CATEGORY[o["name"]]] += o["device_time_s"]
        meas = {k: 0.0 for k in c.CATEGORIES + ("other",)}
        for n, t in p["top_kernels_s"].items():
            meas[c.fused_category(n)] += t
        t = s["time_s"] - s["host_time_s"]
        e = t / p["spin_first_s"] - 1
        errs.append(abs(e))
        cells = []
        for k in cats:
            ek = (t - pred[k] + meas[k]) / p["spin_first_s"] - 1
            exact[k].append(abs(ek))
            cells.append(f"{pred[k] * 1e6:.0f} / {meas[k] * 1e6:.0f} ({ek:+.2%})")
        ea = (t - pred["attention"] + meas["attention"] + meas["other"]) / p["spin_first_s"] - 1
        exact["attention+other"].append(abs(ea))
        print(f"| {p['model']} b{p['batch']} ctx{p['ctx']} | {e:+.2%} | " + " | ".join(cells) + f" | {meas['other'] * 1e6:.0f} |")
    print(f"\nprefill median |error|: {median(errs):.2%}")
    for k, v in exact.items():
        print(f"  with {k} priced as measured: {median(v):.2%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "", sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel")
