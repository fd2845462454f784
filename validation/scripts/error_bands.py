#!/usr/bin/env python3
"""Writes the `error_bands:` section of a card's calibration file from `perfmodel accuracy --bands`.

    python3 validation/scripts/error_bands.py build/tools/perfmodel/perfmodel h200 \
        hardware/h200.calibration.yaml validation/results/h200 validation/results/h200-production

Runs the accuracy report on the given result folders with the card's current calibration, and
replaces the file's `error_bands:` section (kept last in the file) with the measured bands.

The eager profile's `step` band (a step's wall time, what `decode --impl eager` reports) comes from the committed
transformers eager steps (HF_STEPS, read as compare_hf.py prices them): their wall time is mostly the host's, whose
pace differs from one lease to the next by up to 1.7x (h200-heldout24/README.md), so its band is much wider than the
kernels'. h200-heldout24's steps are kept out, as that set's check."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "production"))
from compare_hf import model_arg, priced_ctx  # noqa: E402
from targets import quantile  # noqa: E402  (stats.hpp's quantile)

HF_STEPS = ["validation/results/h200-production/hf.json", "validation/results/h200-hf-grid/hf.json"] + \
    [f"validation/results/h200-heldout{n}/hf/hf.json" for n in range(16, 24)]


def eager_step_band(exe):
    """p10 / p90 of predicted / measured wall - 1 over the committed transformers eager steps (decode and prefill)."""
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in HF_STEPS:
            for s in json.load(open(path))["steps"]:
                if not s.get("ok"):
                    continue
                layout = ["--eager-cache", "contiguous"] if s.get("cache_layout") == "contiguous" else []
                out = subprocess.run([exe, s["phase"], "--model", model_arg(s, tmp), "--card", "h200", "--batch",
                                      str(s["batch"]), "--ctx", str(priced_ctx(s)), "--impl", "eager", "--format", "json"]
                                     + layout, capture_output=True, text=True)
                if out.returncode == 2:  # refused (a context past the model's positions): not priced
                    continue
                out.check_returncode()
                errors.append(json.loads(out.stdout)["step"]["time_s"] / s["wall_s"] - 1)
    return {"p10": quantile(errors, 0.1), "p90": quantile(errors, 0.9), "cases": len(errors)}


exe, card, cal_file, *folders = sys.argv[1:]
out = subprocess.run([exe, "accuracy", "--card", card, "--calibration", cal_file, "--bands", "--format", "json",
                      "--measured", *folders], check=True, capture_output=True, text=True).stdout
rows = json.loads(out)["error_bands"]
eager = [r for r in rows if r["profile"] == "eager"]
if eager:
    step = eager_step_band(exe)
    source = eager[0]["source"] + "; steps: transformers 5 eager steps' wall time, h200-heldout24 kept out"
    for r in eager:
        r["source"] = source
    rows = [r for r in rows if not (r["profile"] == "eager" and r["set"] == "step")]
    rows.append(dict(profile="eager", set="step", source=source, **step))
lines = ["error_bands:   # p10 / p90 of predicted / measured - 1 per profile and set (perfmodel accuracy --bands;"
         " validation/scripts/error_bands.py)"]
for profile in sorted({r["profile"] for r in rows}):
    mine = [r for r in rows if r["profile"] == profile]
    lines.append(f"  {profile}:")
    lines.append(f'    source: "{mine[0]["source"]} ({", ".join(folders)})"')
    for r in sorted(mine, key=lambda r: r["set"]):
        lines.append(f'    {r["set"]}: {{p10: {r["p10"]:.4f}, p90: {r["p90"]:.4f}, cases: {r["cases"]}}}')
text = open(cal_file).read()
at = text.find("\nerror_bands:")
if at >= 0:
    text = text[:at + 1]
open(cal_file, "w").write(text.rstrip("\n") + "\n" + "\n".join(lines) + "\n")
print("\n".join(lines))
