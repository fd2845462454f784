#!/usr/bin/env python3
"""Branch hostmod2: eager wall-time error per set of Hugging Face steps, under one calibration.

Usage: python3 validation/scripts/production/host_walls.py [perfmodel binary] [calibration]

|predicted / measured - 1| of step.time_s against wall_s, median / p90 over every ok step of each
set and over the tests' fit / held-out halves (h200-production even / odd; h200-moe and
h200-moe-contiguous: Qwen3-30B-A3B and DeepSeek-V2-Lite decode fit, Mixtral and prefill held out;
the rest held out). h200-heldout16..21/hf are check sets, never fitted (branch hostaten added
18-21). The last line pools the six check sets.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
SETS = ["h200-production/hf.json", "h200-hf-grid/hf.json", "h200-moe/hf.json", "h200-moe-sync/hf.json",
        "h200-moe-contiguous/hf.json", "h200-heldout16/hf/hf.json", "h200-heldout17/hf/hf.json",
        "h200-heldout18/hf/hf.json", "h200-heldout19/hf/hf.json", "h200-heldout20/hf/hf.json",
        "h200-heldout21/hf/hf.json"]


def pct(v):
    v = sorted(abs(x) for x in v)
    if not v:
        return 0.0, 0.0
    med = (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
    pos = 0.9 * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return med, v[lo] + (v[hi] - v[lo]) * (pos - lo)


def part(folder, i, s):
    if folder == "h200-production":
        return "fit" if i % 2 == 0 else "held"
    if folder in ("h200-moe", "h200-moe-contiguous"):
        return "fit" if s["model"] != "mixtral-8x7b" and s["phase"] == "decode" else "held"
    return "held"


def main(binary, cal):
    pooled = []
    for rel in SETS:
        folder = rel.split("/")[0]
        errs = {"all": [], "fit": [], "held": []}
        for i, s in enumerate(json.load(open(os.path.join(ROOT, "validation/results", rel)))["steps"]):
            if not s.get("ok"):
                continue
            ctx = s["ctx"] + (1 if s["phase"] == "decode" else 0)
            args = [binary, s["phase"], "--model", s["model"], "--card", "h200", "--batch", str(s["batch"]),
                    "--ctx", str(ctx), "--impl", "eager", "--format", "json", "--calibration", cal]
            args += ["--eager-cache", "contiguous" if s.get("cache_layout") == "contiguous" else "cropped"]
            out = subprocess.run(args, capture_output=True, text=True)
            if out.returncode != 0:
                continue
            e = json.loads(out.stdout)["step"]["time_s"] / s["wall_s"] - 1
            errs["all"].append(e)
            errs[part(folder, i, s)].append(e)
        line = f"{folder:20s}"
        for k in ("all", "fit", "held"):
            if errs[k]:
                m, p = pct(errs[k])
                line += f"  {k} {len(errs[k]):2d}: {m:5.1%} / {p:5.1%}"
        print(line)
        if folder.startswith("h200-heldout"):
            pooled.extend(errs["all"])
    m, p = pct(pooled)
    print(f"{'checks 16-21 pooled':20s}  all {len(pooled):2d}: {m:5.1%} / {p:5.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel",
         sys.argv[2] if len(sys.argv) > 2 else "hardware/h200.calibration.yaml")
