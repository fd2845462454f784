#!/usr/bin/env python3
"""h200-quant2's Hugging Face Llama-3-8B eager decode steps (bf16, FP8 row-wise dynamic, W4A16
g128) against `perfmodel decode --impl eager` with the matching quantization flags.

Usage: python3 validation/scripts/quant/compare_quant_decode.py [quant2.json] [perfmodel binary]

Both runs of the steps are compared ("steps": the first call; "steps_warm": the second call, after
a warm-up of every mode). Wall time against step.time_s, GPU kernel time against
step.device_time_s, kernels per step against step.launches; error = predicted / measured - 1.
Nothing is fitted on these steps.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "production"))
from compare_hf import pct  # noqa: E402

FLAGS = {"bf16": [], "fp8": ["--weight-dtype", "fp8", "--act-dtype", "fp8", "--scaling", "row", "--act-quant", "dynamic"],
         "int4": ["--weight-dtype", "int4", "--group-size", "128"]}


def main(path, binary):
    doc = json.load(open(path))
    print("| run | step | wall | kernels | kernels/step | pred. wall | pred. device | pred. launches | wall err | kernel err |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    errs = {}
    for run in ("steps", "steps_warm"):
        for s in doc.get(run, []):
            if not s.get("ok"):
                continue
            out = subprocess.run([binary, "decode", "--model", s["model"], "--card", "h200", "--batch", str(s["batch"]),
                                  "--ctx", str(s["ctx"]), "--impl", "eager", "--eager-cache", "cropped",  # hf_decode.py's crop
                                  "--format", "json"] + FLAGS[s["quant"]],
                                 capture_output=True, text=True, check=True)
            st = json.loads(out.stdout)["step"]
            we, ke = st["time_s"] / s["wall_s"] - 1, st["device_time_s"] / s["kernel_s"] - 1
            w, k = errs.setdefault(s["quant"], ([], []))
            w.append(we)
            k.append(ke)
            print(f"| {run} | {s['quant']} b{s['batch']} ctx{s['ctx']} | {s['wall_s'] * 1e3:.2f} ms | {s['kernel_s'] * 1e3:.2f} ms | "
                  f"{s['kernels_per_step']:.0f} | {st['time_s'] * 1e3:.2f} ms | {st['device_time_s'] * 1e3:.2f} ms | "
                  f"{st['launches']} | {we:+.0%} | {ke:+.0%} |")
    for q, (w, k) in errs.items():
        wm, wp = pct(w)
        km, kp = pct(k)
        print(f"{q}: {len(w)} steps; wall median {wm:.1%} p90 {wp:.1%}; kernels median {km:.1%} p90 {kp:.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-quant2/quant2.json",
         sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel")
