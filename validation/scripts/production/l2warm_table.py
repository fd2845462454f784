#!/usr/bin/env python3
"""The small kernels of the fused decode step: measured alone in three L2 states (l2warm.py,
l2warm_rope.py: validation/results/h200-fusedsmall), measured inside the step (fused_step.py's
graph replays, per kernel instance: validation/results/h200-fused-step-cudnn, ctx 2048) and priced
(`perfmodel decode --impl fused`, ops[].device_time_s / count). Branch fusedsmall, issue 10.

Usage: python3 validation/scripts/production/l2warm_table.py [perfmodel] [calibration.yaml]
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
RES = os.path.join(ROOT, "validation", "results")
# widths measured alone -> the model whose step runs that shape
NORM = {2048: "tinyllama-1.1b", 4096: "llama3-8b"}
ACT = {5632: "tinyllama-1.1b", 14336: "llama3-8b"}
ROPE = {64: "tinyllama-1.1b", 128: "llama3-8b"}  # head_dim
# the step's kernel names (results.jsonl top_kernels_s, decode) by priced op
ROPE_KERNELS = {"q rotary": ("_view_2", "rotary_q"), "k rotary + K write": ("_view_0", "rotary_k"),
                "V write": ("_view_1", "kv_write")}


def in_step(model, batch):
    for line in open(os.path.join(RES, "h200-fused-step-cudnn", "results.jsonl")):
        r = json.loads(line)
        if r.get("kind") == "point" and r["phase"] == "decode" and r["model"] == model and r["batch"] == batch \
                and r["ctx"] == 2048:
            return r


def per_instance(r, key, instances):
    return sum(v for k, v in r["top_kernels_s"].items() if key in k) / instances * 1e6


def priced(binary, cal, model, batch):
    out = subprocess.run([binary, "decode", "--model", model, "--card", "h200", "--batch", str(batch), "--ctx", "2048",
                          "--impl", "fused", "--format", "json"] + cal, capture_output=True, text=True, check=True)
    return {o["name"]: o["device_time_s"] / o["count"] * 1e6 for o in json.loads(out.stdout)["ops"]}


def main(binary, cal):
    print("| kernel | shape | rows | alone cold | alone producer-warm | alone all-warm | in step | priced | "
          "priced / in step - 1 |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for line in open(os.path.join(RES, "h200-fusedsmall", "l2warm.jsonl")):
        a = json.loads(line)
        norm = a["kind"] == "add_rmsnorm"
        model = (NORM if norm else ACT)[a["width"]]
        r = in_step(model, a["rows"])
        L = r["layers"]
        step = per_instance(r, "rms_norm", 2 * L + 1) if norm else per_instance(r, "silu", L)
        p = priced(binary, cal, model, a["rows"])["input_norm" if norm else "act_mul"]
        print(f"| {a['kind']} | {model} {a['width']} | {a['rows']} | {a['cold']:.2f} | {a['producer_warm']:.2f} | "
              f"{a['all_warm']:.2f} | {step:.2f} | {p:.2f} | {p / step - 1:+.0%} |")
    for line in open(os.path.join(RES, "h200-fusedsmall", "l2warm_rope.jsonl")):
        a = json.loads(line)
        if "meta" in a:
            continue
        model = ROPE[a["head_dim"]]
        r = in_step(model, a["batch"])
        p = priced(binary, cal, model, a["batch"])
        for label, (suffix, op) in ROPE_KERNELS.items():
            get = lambda d: next((v for k, v in d.items() if k.endswith(suffix)), float("nan"))
            step = per_instance(r, suffix, r["layers"])
            pr = p.get(op, float("nan"))
            print(f"| {label} | {model} {a['heads']}/{a['kv_heads']}/{a['head_dim']} | {a['batch']} | "
                  f"{get(a['cold']):.2f} | {get(a['producer_warm']):.2f} | {get(a['all_warm']):.2f} | {step:.2f} | "
                  f"{pr:.2f} | {pr / step - 1:+.0%} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tools", "perfmodel", "perfmodel"),
         ["--calibration", sys.argv[2]] if len(sys.argv) > 2 else [])
