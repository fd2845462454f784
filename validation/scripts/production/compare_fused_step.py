#!/usr/bin/env python3
"""fused_step.py's steps (validation/results/h200-fused-step/results.jsonl) against
`perfmodel decode|prefill --impl fused --card h200` at the same model, batch and ctx (the script's
cache holds exactly ctx slots and decode attends over all ctx keys, so --ctx is the measured ctx).

Usage: [PERFMODEL_CARD=h100-sxm] python3 validation/scripts/production/compare_fused_step.py [results.jsonl] [perfmodel binary] [calibration.yaml]

(the calibration: hardware/h200.calibration.yaml unless given, e.g. a variant of it with a key laid
over, validation/results/h200-gemm6/)

Compared per point: the CUDA-graph replay (device_s, CUDA events around one replay, median) against
step.time_s; the profiler's kernel sum (kernel_s) against step.device_time_s; kernels per step
against launches. Per kernel category: the predicted ops of a category (all their instances)
against the measured kernels of that category (fused_categories.py over the step's kernel names:
the 25 most expensive, which cover every kernel of these steps), on kernel time (ops[].device_time_s,
without the in-graph gaps). Error = predicted / measured - 1. One value was fitted on these steps: the
fused profile's graph_kernel_gap, on the even decode points (fit_graph_gap.py); the odd decode points
and every prefill point are held out of it, and the kernel prices were fitted on none of them.
With the opt-in calibration validation/results/h200-graphhost11/graphhost.calibration.yaml (the
GPU's idle per launch and the host's graph launch apart, fitted on h200-fused-step-alone) the
"held out" rows are not its split: compare_fused_alone.py reports that one.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from compare_hf import pct
from fused_categories import fused_category

# The fused profile's op names (lib/src/model/decoder.cpp, fused_profile.cpp) by measured category.
OP_CATEGORY = {"qkv_proj": "gemm", "o_proj": "gemm", "gate_up_proj": "gemm", "down_proj": "gemm", "lm_head": "gemm",
               "attention": "attention", "input_norm": "norm", "post_attn_norm": "norm", "final_norm": "norm",
               "act_mul": "act", "rotary": "rope_kv", "rotary_q": "rope_kv", "rotary_k": "rope_kv", "kv_write": "rope_kv", "embed_tokens": "embedding"}
CATEGORIES = ("gemm", "attention", "norm", "act", "rope_kv", "embedding")


def load(path):
    return [json.loads(line) for line in open(path) if line.strip()]


ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


def model_arg(key, ctx, folder):
    """The catalogue key, or a copy of its YAML with max_position_embeddings raised to ctx where the
    sweep ran past it (TinyLlama at 4096: perfmodel refuses such a ctx; the kernels do not care)."""
    text = open(os.path.join(ROOT, "models", f"{key}.yaml")).read()
    limit = int(re.search(r"^max_position_embeddings:\s*(\d+)", text, flags=re.M).group(1))
    if ctx <= limit:
        return key
    path = os.path.join(folder, f"{key}-pos{ctx}.yaml")
    open(path, "w").write(re.sub(r"^max_position_embeddings:\s*\d+", f"max_position_embeddings: {ctx}", text,
                                 flags=re.M))
    return path


CALIBRATION = []  # ["--calibration", path] when a third argument names one
# The catalogue card the steps ran on: h200 unless PERFMODEL_CARD names another (an H100's steps: h100-sxm, priced with
# the H200's calibration carried to the die's sibling, as `perfmodel decode --card h100-sxm` does).
CARD = os.environ.get("PERFMODEL_CARD", "h200")


def predict(binary, p, folder, extra=()):
    """`extra`: more flags, e.g. ("--gpu-rest", "0.003") for a replay timed behind a 3 ms spin."""
    model = model_arg(p["model"], p["ctx"], folder)
    out = subprocess.run([binary, p["phase"], "--model", model, "--card", CARD, "--batch", str(p["batch"]),
                          "--ctx", str(p["ctx"]), "--impl", "fused", "--format", "json"] + CALIBRATION + list(extra),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def compare(points, binary):
    """One row per measured point: errors of the step and of each category."""
    rows = []
    tmp = tempfile.TemporaryDirectory()
    for p in points:
        doc = predict(binary, p, tmp.name)
        st = doc["step"]
        pred = {c: 0.0 for c in CATEGORIES}
        for o in doc["ops"]:
            pred[OP_CATEGORY[o["name"]]] += o["device_time_s"]  # all instances of the op, kernel time
        meas = {c: 0.0 for c in CATEGORIES + ("other",)}
        for name, t in p["top_kernels_s"].items():  # every kernel of the step (the top 25 cover all)
            meas[fused_category(name)] += t
        rows.append(dict(point=p, time_s=st["time_s"], device_time_s=st["device_time_s"], launches=st["launches"],
                         graph_err=st["time_s"] / p["device_s"] - 1, kernel_err=st["device_time_s"] / p["kernel_s"] - 1,
                         pred=pred, meas=meas))
    return rows


def held_out(rows):
    """The points held out of graph_kernel_gap's fit: odd decode points (in file order) and all prefill."""
    dec = [r for r in rows if r["point"]["phase"] == "decode"]
    return [r for r in rows if r["point"]["phase"] == "prefill" or dec.index(r) % 2 == 1]


def summary(name, errs):
    m, q = pct(errs)
    return f"| {name} | {len(errs)} | {m:.1%} | {q:.1%} | {sum(errs) / max(len(errs), 1):+.1%} |"


def main(path, binary):
    recs = load(path)
    points = [r for r in recs if r.get("kind") == "point" and r.get("ok")]
    bad = [r for r in recs if r.get("kind") in ("error", "skipped") or (r.get("kind") == "point" and not r.get("ok"))]
    rows = compare(points, binary)
    print("| point | graph replay | kernel sum | wall | kernels | pred. step | pred. kernels | pred. launches "
          "| err vs graph | err vs kernel sum |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        p = r["point"]
        print(f"| {p['model']} {p['phase']} b{p['batch']} ctx{p['ctx']} | {p['device_s'] * 1e3:.3f} ms | "
              f"{p['kernel_s'] * 1e3:.3f} ms | {p['wall_s'] * 1e3:.3f} ms | {p['kernels']:.0f} | "
              f"{r['time_s'] * 1e3:.3f} ms | {r['device_time_s'] * 1e3:.3f} ms | {r['launches']} | "
              f"{r['graph_err']:+.1%} | {r['kernel_err']:+.1%} |")
    print(f"\n{len(points)} points compared; not compared (failed, errored or skipped): {len(bad)}\n")
    print("| step error | points | median abs | p90 abs | mean signed |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for phase in ("decode", "prefill", None):
        sel = [r for r in rows if phase in (None, r["point"]["phase"])]
        label = phase or "all"
        print(summary(f"{label}: vs graph replay", [r["graph_err"] for r in sel]))
        print(summary(f"{label}: vs kernel sum", [r["kernel_err"] for r in sel]))
    for model in sorted({r["point"]["model"] for r in rows}):
        print(summary(f"{model}: vs graph replay", [r["graph_err"] for r in rows if r["point"]["model"] == model]))
    # graph_kernel_gap was fitted on h200-fused-step's even decode points: any other set is held out whole.
    fit_set = os.path.basename(os.path.dirname(os.path.abspath(path))) == "h200-fused-step"
    held = held_out(rows) if fit_set else rows
    for phase in ("decode", "prefill", None):
        sel = [r for r in held if phase in (None, r["point"]["phase"])]
        print(summary(f"{phase or 'all'}: vs graph replay, held out of graph_kernel_gap", [r["graph_err"] for r in sel]))
    gaps = sorted((r["point"]["device_s"] - r["point"]["kernel_s"]) / r["point"]["kernels"] for r in rows
                  if r["point"]["phase"] == "decode")
    print(f"\nDecode: (graph replay - kernel sum) / measured kernels = {gaps[len(gaps) // 2] * 1e6:.2f} us median "
          f"({gaps[0] * 1e6:.2f} to {gaps[-1] * 1e6:.2f} us over {len(gaps)} points)")
    print("\nPer category, predicted ops against measured kernels (error of the category's total per step):\n")
    print("| category | phase | points | measured share of kernel sum | median abs | p90 abs | mean signed |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for phase in ("decode", "prefill"):
        sel = [r for r in rows if r["point"]["phase"] == phase]
        for c in CATEGORIES:
            pairs = [(r["pred"][c], r["meas"][c]) for r in sel if r["meas"][c] > 0]
            if not pairs:
                continue
            errs = [pr / me - 1 for pr, me in pairs]
            share = sum(me for _, me in pairs) / sum(r["point"]["kernel_s"] for r in sel)
            m, q = pct(errs)
            print(f"| {c} | {phase} | {len(errs)} | {share:.1%} | {m:.1%} | {q:.1%} | {sum(errs) / len(errs):+.1%} |")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if len(sys.argv) > 3:
        CALIBRATION[:] = ["--calibration", sys.argv[3]]
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-fused-step/results.jsonl",
         sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel")
