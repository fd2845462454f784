#!/usr/bin/env python3
"""Writes the `error_bands:` section of a card's calibration file from `perfmodel accuracy --bands`.

    python3 validation/scripts/error_bands.py build/tools/perfmodel/perfmodel h200 \
        hardware/h200.calibration.yaml validation/results/h200 validation/results/h200-production

Runs the accuracy report on the given result folders with the card's current calibration, and
replaces the file's `error_bands:` section (kept last in the file) with the measured bands."""
import json
import subprocess
import sys

exe, card, cal_file, *folders = sys.argv[1:]
out = subprocess.run([exe, "accuracy", "--card", card, "--calibration", cal_file, "--bands", "--format", "json",
                      "--measured", *folders], check=True, capture_output=True, text=True).stdout
rows = json.loads(out)["error_bands"]
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
