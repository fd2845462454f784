#!/usr/bin/env python3
"""Which decode errors the fused GEMM block uncovers in h200-fused-step-cudnn (branch gemmdef).

    python3 validation/scripts/production/gemmdef_decode.py [perfmodel] [calibration.yaml with the block]

(default: validation/results/h200-gemm16/gemm16.calibration.yaml, the opt-in block)

Per decode point (60, measure()'s replays; none fitted on): the step's error against the graph replay
without the fused profile's `gemm:` block (the calibration with those lines cut, as main had it) and
with it, the GEMM category's error (kernel time, compare_fused_step.py's categories) both ways, and
the step's error with the block were its GEMMs priced as measured (predicted step - predicted GEMM
kernels + measured GEMM kernels). Then medians by model and by batch.
"""
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_fused_step as c  # noqa: E402

DATA = "validation/results/h200-fused-step-cudnn/results.jsonl"


def without_block(cal, folder):
    """The calibration with the fused profile's `gemm:` block cut (its 8 lines)."""
    lines = open(cal).read().splitlines(keepends=True)
    out, skip = [], None
    for ln in lines:
        ind = len(ln) - len(ln.lstrip())
        if skip is not None:
            if ln.strip() and ind <= skip:
                skip = None
            else:
                continue
        if re.match(r"\s+gemm:\s*(#.*)?$", ln) and out and any("fused:" in x for x in out[-3:]):
            skip = ind
            continue
        out.append(ln)
    path = os.path.join(folder, "noblock.calibration.yaml")
    open(path, "w").write("".join(out))
    return path


def med(v):
    return statistics.median([abs(x) for x in v]) if v else float("nan")


def main(binary, cal):
    tmp = tempfile.mkdtemp()
    pts = [r for r in c.load(DATA) if r.get("kind") == "point" and r.get("ok") and r["phase"] == "decode"]
    c.CALIBRATION[:] = ["--calibration", without_block(cal, tmp)]
    a = c.compare(pts, binary)
    c.CALIBRATION[:] = ["--calibration", cal]
    b = c.compare(pts, binary)
    print("| point | step, no block | step, block | GEMMs, no block | GEMMs, block | GEMM pred - meas (us) | step, block, GEMMs as measured |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = []
    for x, y in zip(a, b):
        p = x["point"]
        g0 = x["pred"]["gemm"] / x["meas"]["gemm"] - 1
        g1 = y["pred"]["gemm"] / y["meas"]["gemm"] - 1
        ex = (y["time_s"] - y["pred"]["gemm"] + y["meas"]["gemm"]) / p["device_s"] - 1
        rows.append((p, x["graph_err"], y["graph_err"], g0, g1, ex))
        print(f"| {p['model']} b{p['batch']} ctx{p['ctx']} | {x['graph_err']:+.1%} | {y['graph_err']:+.1%} | {g0:+.1%} | "
              f"{g1:+.1%} | {(y['pred']['gemm'] - y['meas']['gemm']) * 1e6:+.0f} | {ex:+.1%} |")
    print("\n| set | points | step median abs, no block | block | block, GEMMs as measured | GEMMs median abs, no block | block | GEMMs mean signed, block |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    groups = [("all decode", rows)]
    groups += [(m, [r for r in rows if r[0]["model"] == m]) for m in sorted({r[0]["model"] for r in rows})]
    groups += [(f"b{bt}", [r for r in rows if r[0]["batch"] == bt]) for bt in sorted({r[0]["batch"] for r in rows})]
    for name, rs in groups:
        print(f"| {name} | {len(rs)} | {med([r[1] for r in rs]):.2%} | {med([r[2] for r in rs]):.2%} | {med([r[5] for r in rs]):.2%} | "
              f"{med([r[3] for r in rs]):.2%} | {med([r[4] for r in rs]):.2%} | {statistics.mean([r[4] for r in rs]):+.2%} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel",
         sys.argv[2] if len(sys.argv) > 2 else "validation/results/h200-gemm16/gemm16.calibration.yaml")
