#!/usr/bin/env python3
"""Branch hostmod2: the eager host time per top-level ATen op and per nn.Module call, fitted.

Usage: python3 validation/scripts/production/fit_host_aten.py [perfmodel binary] [calibration]

Counts per step come from the binary itself (the eager lowering's Op::aten_calls() and
module_calls, validation/results/h200-hostmod2/counts.jsonl): the step's host time priced under
two scratch calibrations (host_per_aten 1 us, host_per_module 0 / 1 us). The fit: host-bound decode
steps (wall >= 2 x kernel time) of the FIT halves the tests use -- h200-production's even steps
(test_profile_accuracy) and h200-moe's Qwen3-30B-A3B and DeepSeek-V2-Lite decode steps
(test_moe_accuracy's fit set) -- wall ~ a x ATen ops + b x module calls, least squares on the
relative error (b >= 0). Everything else is held out and printed as a check: h200-production's
odd steps, h200-hf-grid, h200-moe's Mixtral, h200-moe-sync, h200-moe-contiguous, and the check
sets h200-heldout16/hf and h200-heldout17/hf (never fitted).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
SETS = ["h200-production/hf.json", "h200-hf-grid/hf.json", "h200-moe/hf.json", "h200-moe-sync/hf.json",
        "h200-moe-contiguous/hf.json", "h200-heldout16/hf/hf.json", "h200-heldout17/hf/hf.json"]


def scratch(cal_text, aten_us, module_us, folder, name):
    text = re.sub(r"^(\s*)host_per_kernel:.*$",
                  lambda m: f"{m.group(1)}host_per_aten: {aten_us} us\n{m.group(1)}host_per_module: {module_us} us",
                  cal_text, count=1, flags=re.M)
    path = os.path.join(folder, name)
    open(path, "w").write(text)
    return path


def host_s(binary, cal, s, model):
    ctx = s["ctx"] + (1 if s["phase"] == "decode" else 0)
    args = [binary, s["phase"], "--model", model, "--card", "h200", "--batch", str(s["batch"]), "--ctx", str(ctx),
            "--impl", "eager", "--format", "json", "--calibration", cal]
    if s.get("cache_layout") == "contiguous":
        args += ["--eager-cache", "contiguous"]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)["step"]["host_time_s"]


def is_fit(folder, i, s):
    if folder == "h200-production":
        return i % 2 == 0
    if folder == "h200-moe":
        return s["model"] != "mixtral-8x7b" and s["phase"] == "decode"
    return False


def main(binary, cal_path):
    cal_text = open(cal_path).read()
    # keep one host_per_kernel line to replace; drop host_per_aten / host_per_module lines already there
    cal_text = re.sub(r"^\s*host_per_(aten|module):.*\n", "", cal_text, flags=re.M)
    tmp = tempfile.TemporaryDirectory()
    c1 = scratch(cal_text, 1, 0, tmp.name, "a.yaml")
    c2 = scratch(cal_text, 1, 1, tmp.name, "b.yaml")
    rows = []
    for rel in SETS:
        folder = rel.split("/")[0]
        for i, s in enumerate(json.load(open(os.path.join(ROOT, "validation/results", rel)))["steps"]):
            if not s.get("ok"):
                continue
            a = host_s(binary, c1, s, s["model"])
            if a is None:
                continue
            ab = host_s(binary, c2, s, s["model"])
            rows.append(dict(set=folder, i=i, s=s, aten=round(a * 1e6), mod=round((ab - a) * 1e6), fit=is_fit(folder, i, s)))
    fit = [r for r in rows if r["fit"] and r["s"]["phase"] == "decode" and r["s"]["wall_s"] >= 2 * r["s"]["kernel_s"]]
    # minimise sum (a A/w + b M/w - 1)^2
    saa = sum((r["aten"] / r["s"]["wall_s"]) ** 2 for r in fit)
    smm = sum((r["mod"] / r["s"]["wall_s"]) ** 2 for r in fit)
    sam = sum(r["aten"] * r["mod"] / r["s"]["wall_s"] ** 2 for r in fit)
    sa = sum(r["aten"] / r["s"]["wall_s"] for r in fit)
    sm = sum(r["mod"] / r["s"]["wall_s"] for r in fit)
    det = saa * smm - sam * sam
    a, b = (sa * smm - sm * sam) / det, (saa * sm - sam * sa) / det
    if b < 0:
        a, b = sa / saa, 0.0
    print(f"fit on {len(fit)} host-bound decode steps: host_per_aten {a * 1e6:.2f} us, host_per_module {b * 1e6:.2f} us")
    a1 = sa / saa
    print(f"(one parameter, per ATen op alone: {a1 * 1e6:.2f} us)")
    for r in rows:
        s = r["s"]
        if s["phase"] != "decode" or s["wall_s"] < 2 * s["kernel_s"]:
            continue
        pred = a * r["aten"] + b * r["mod"]
        print(f"  {r['set']:20s} {r['i']:2d} {'fit ' if r['fit'] else 'held'} {s['model']:16s} b{s['batch']:<4d} ctx{s['ctx']:<6d} "
              f"aten {r['aten']:5d} mod {r['mod']:4d} kernels {s['kernels_per_step']:5.0f} wall {s['wall_s'] * 1e3:7.2f} ms "
              f"host {pred * 1e3:7.2f} ms ({pred / s['wall_s'] - 1:+.1%})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel",
         sys.argv[2] if len(sys.argv) > 2 else "hardware/h200.calibration.yaml")
