#!/usr/bin/env python3
"""torch.compile steps (run_compiled.py's hf.json) against `perfmodel decode --impl compiled`.

Usage: [PERFMODEL_CARD=h100-sxm] python3 validation/scripts/production/compare_compiled.py [hf.json | compiled2.jsonl]
           [perfmodel binary] [calibration] [--fitted-even]

PERFMODEL_CARD: the catalogue card the steps ran on (default h200).

A calibration file prices the steps in place of the committed one (`perfmodel calibrate --profile compiled --only
graph --from-steps FILE --output CAL`: the lease's own graph keys); --fitted-even: that calibration was fitted on this
.jsonl file's even steps, so they count as fitted and its odd ones as held out.

The measured models are cut to `layers` decoder layers; perfmodel prices the same cut model (a copy
of models/<key>.yaml with num_hidden_layers set, written to a temporary folder). A StaticCache
attends over all of its ctx + 40 slots (the rest masked), so the step is priced at --ctx kv_len.
Compared: the wall time per step (wall_s, host clock around one synchronized call: what a user
waits) and the CUDA-graph replay (device_s, CUDA events around one call) against step.time_s, the
GPU kernel sum (kernel_s, profiler) against step.device_time_s, kernels per step against launches,
and the SDPA op(s) against the step's cuDNN SDPA + lean_reduction kernels (top_kernels_s). Where a
record has the replay timed with the host kept out (graph_pure_s: compiled_gaps.py's GPU spin first,
validation/results/h200-compiled2), the GPU-alone replay against step.time_s - step.host_time_s (the
kernels and graph_kernel_gap per launch, without graph_call_host: like with like).
Error = predicted / measured - 1. The calibration's graph_call_host is fitted on steps FIT_STEPS
(fit_compiled.py); the other steps are held out. A .jsonl file (compiled_gaps.py's records,
validation/results/h200-compiled2) has no fitted step: every step is held out. The cuDNN decode
kernel is fitted on kernel cases (validation/results/h200-production), no step.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from compare_hf import pct
from fit_compiled import FIT_STEPS

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


def cut_model(key, layers, folder):
    text = open(os.path.join(ROOT, "models", f"{key}.yaml")).read()
    text, n = re.subn(r"^num_hidden_layers:\s*\d+", f"num_hidden_layers: {layers}", text, flags=re.M)
    assert n == 1, key
    path = os.path.join(folder, f"{key}-L{layers}.yaml")
    open(path, "w").write(text)
    return path


def load_steps(path, fitted_even=False):
    """(steps, fitted step indices): hf.json's steps (FIT_STEPS fitted) or a .jsonl of compiled_gaps.py
    records (none fitted; the even ones with fitted_even)."""
    if path.endswith(".jsonl"):
        steps = [r for r in map(json.loads, open(path)) if r.get("ok")]
        return steps, tuple(range(0, len(steps), 2)) if fitted_even else ()
    return [s for s in json.load(open(path))["steps"] if s.get("ok")], FIT_STEPS


def top_kernels(s):
    """Kernel name -> seconds per step: hf.json's top 25, or summed from a compiled_gaps.py trace."""
    if "top_kernels_s" in s:
        return s["top_kernels_s"]
    out = {}
    for name, dur_us, *_ in s["trace"]:
        out[name] = out.get(name, 0.0) + dur_us * 1e-6
    return out


def main(path, binary, calibration=None, fitted_even=False):
    steps, fitted = load_steps(path, fitted_even)
    extra = ["--calibration", calibration] if calibration else []
    print("| step | graph_call_host | wall | graph replay | kernels | kernels/step | pred. step | pred. device "
          "| pred. launches | wall err | graph err | kernel err | SDPA meas. | SDPA pred. | SDPA err |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    wall_err, graph_err, kernel_err, sdpa_err, held, alone_err = [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, s in enumerate(steps):
            model = cut_model(s["model"], s["layers"], tmp)
            out = subprocess.run([binary, s["phase"], "--model", model, "--card", os.environ.get("PERFMODEL_CARD", "h200"),
                                  "--batch", str(s["batch"]),
                                  "--ctx", str(s["kv_len"]), "--impl", "compiled", "--format", "json"] + extra,
                                 capture_output=True, text=True)
            if out.returncode == 2:  # a point perfmodel refuses (e.g. past the model's positions): said, not priced
                print(f"| {s['model']} L{s['layers']} {s['phase']} b{s['batch']} ctx{s['ctx']} | not priced: "
                      f"{out.stderr.strip()} |")
                continue
            out.check_returncode()
            doc = json.loads(out.stdout)
            st = doc["step"]
            we, ge, ke = (st["time_s"] / s["wall_s"] - 1, st["time_s"] / s["device_s"] - 1,
                          st["device_time_s"] / s["kernel_s"] - 1)
            sdpa_pred = sum(o["device_time_s"] for o in doc["ops"] if o["name"].endswith(".sdpa"))  # all instances, kernel time
            sdpa_meas = sum(v for k, v in top_kernels(s).items()
                            if k.startswith("cudnn_generated_fort_native_sdpa") or "lean_reduction_kernel" in k)
            se = sdpa_pred / sdpa_meas - 1
            if "graph_pure_s" in s:
                alone_err.append((st["time_s"] - st["host_time_s"]) / s["graph_pure_s"] - 1)
            wall_err.append(we)
            graph_err.append(ge)
            kernel_err.append(ke)
            sdpa_err.append(se)
            held.append(i not in fitted)
            print(f"| {s['model']} L{s['layers']} {s['phase']} b{s['batch']} ctx{s['ctx']} (kv {s['kv_len']}) | "
                  f"{'held out' if held[-1] else 'fit'} | "
                  f"{s['wall_s'] * 1e3:.3f} ms | {s['device_s'] * 1e3:.3f} ms | {s['kernel_s'] * 1e3:.3f} ms | "
                  f"{s['kernels_per_step']:.0f} | {st['time_s'] * 1e3:.3f} ms | {st['device_time_s'] * 1e3:.3f} ms | "
                  f"{st['launches']} | {we:+.1%} | {ge:+.1%} | {ke:+.1%} | {sdpa_meas * 1e6:.0f} us | {sdpa_pred * 1e6:.0f} us | {se:+.1%} |")
    rows = (("wall, fit steps", [e for e, h in zip(wall_err, held) if not h]),
            ("wall, held-out steps", [e for e, h in zip(wall_err, held) if h]),
            ("graph replay, fit steps", [e for e, h in zip(graph_err, held) if not h]),
            ("graph replay, held-out steps", [e for e, h in zip(graph_err, held) if h]),
            ("graph replay, all", graph_err), ("GPU-alone replay (no step fitted)", alone_err),
            ("kernel sum (no step fitted)", kernel_err),
            ("SDPA (no step fitted)", sdpa_err))
    for name, e in rows:
        if not e:
            continue
        m, p = pct(e)
        print(f"{name}: {len(e)} steps; |error| median {m:.1%}, p90 {p:.1%}; signed "
              f"{', '.join(f'{x:+.0%}' for x in e)}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--fitted-even"]
    main(args[0] if len(args) > 0 else "validation/results/h200-compiled/hf.json",
         args[1] if len(args) > 1 else "build/tools/perfmodel/perfmodel",
         args[2] if len(args) > 2 else None, "--fitted-even" in sys.argv)
