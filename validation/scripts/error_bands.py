#!/usr/bin/env python3
"""Writes the `error_bands:` section of a card's calibration file from `perfmodel accuracy --bands`.

    python3 validation/scripts/error_bands.py build/tools/perfmodel/perfmodel h200 \
        hardware/h200.calibration.yaml validation/results/h200 validation/results/h200-production

Runs the accuracy report on the given result folders with the card's current calibration, and
replaces the file's `error_bands:` section (kept last in the file) with the measured bands.

The eager profile's `step` band (a step's wall time, what `decode --impl eager` reports) comes from the transformers
eager decode walls no profiler session preceded and the host rate was not fitted on (fit_host_clean.py's held-out
points: h200-hostlease/walls-first's odd steps, each model's first point of h200-hostlease's first call, the first
point of 18 other sets, one lease each; branch hostclean). Every other committed wall was timed after a torch.profiler
session of its process, which slows it 25-80 % (the profiler drag). Their wall time is mostly the host's, whose pace
differs from one lease to the next by up to 2.4x, so the band is much wider than the kernels'.

The fused profile's `step` band (the default profile's step, what `decode` / `prefill` report) comes from the fused
profile's own steps: fused_step.py's CUDA-graph steps of production kernels (cuBLASLt, Inductor's fused kernels,
cuDNN attention) in FUSED_STEPS, against the graph replay. No key was fitted on them (graph_kernel_gap was fitted on
h200-fused-step-alone). Before, it was the backend's graph-replayed steps of this project's own kernels.
The compiled profile's `step` band comes from the held-out sets' torch.compile'd decode steps (COMPILED_STEPS), wall
time with the host included, as compare_compiled.py prices them.
`perfmodel accuracy --bands` gives the profiles no step band: it reads kernel suites and backend step files only.

With CARD another card of the die than the file's (h100-sxm for hardware/h200.calibration.yaml), the bands are that
card's, measured with the file carried, and go under `sibling_error_bands: CARD` (calibration_transfer.hpp); the eager
step band stays the H200 leases' (no clean walls of the other card are listed)."""
import glob
import json
import re
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "production"))
from targets import quantile  # noqa: E402  (stats.hpp's quantile)

def eager_step_band(exe):
    """p10 / p90 of predicted / measured wall - 1 over the clean held-out transformers eager decode walls."""
    import fit_host_clean
    errors = [e for e in (fit_host_clean.error(exe, None, s) for _, _, s, fit in fit_host_clean.clean_points() if not fit)
              if e is not None]
    return {"p10": quantile(errors, 0.1), "p90": quantile(errors, 0.9), "cases": len(errors)}


# The fused profile's steps per card (fused_step.py, replayed back to back): the H200's, and the H100's measured with
# the H200's file carried (twenty-seventh session).
FUSED_STEPS = {"h200": ["validation/results/h200-fused-step-cudnn/results.jsonl"],
               "h100-sxm": ["validation/results/h100-fusedh100/grid/results.jsonl",
                            "validation/results/h100-fusedh100/new/results.jsonl"]}


def set_name(path):
    """h200-fused-step-cudnn, h100-fusedh100/grid: the results folder under validation/results."""
    return os.path.dirname(path).split("validation/results/")[-1]


def fused_step_band(exe, card, cal_file):
    """p10 / p90 of step.time_s / graph replay - 1 over the fused profile's measured steps (compare_fused_step.py)."""
    import compare_fused_step
    compare_fused_step.CARD = card
    compare_fused_step.CALIBRATION = ["--calibration", cal_file]
    points = [r for path in FUSED_STEPS[card] for r in compare_fused_step.load(path)
              if r.get("kind") == "point" and r.get("ok")]
    errors = [r["graph_err"] for r in compare_fused_step.compare(points, exe)]
    return {"p10": quantile(errors, 0.1), "p90": quantile(errors, 0.9), "cases": len(errors)}


# The compiled profile's steps per card: the held-out sets' torch.compile'd steps (run*c.sh's compiled_gaps.py records),
# every step held out of the committed keys.
COMPILED_STEPS = {"h200": "validation/results/h200-heldout*/compiled/*.jsonl",
                  "h100-sxm": "validation/results/h100-*/**/compiled/*.jsonl"}


def compiled_step_band(exe, card, cal_file):
    """p10 / p90 of step.time_s / wall - 1 (the host included) over the compiled steps (compare_compiled.py's table)."""
    errors, files = [], sorted(glob.glob(COMPILED_STEPS[card], recursive=True))
    env = dict(os.environ, PERFMODEL_CARD=card)
    for path in files:
        out = subprocess.run([sys.executable, os.path.join(HERE, "production", "compare_compiled.py"), path, exe, cal_file],
                             check=True, capture_output=True, text=True, env=env).stdout
        rows = [[c.strip() for c in line.split("|")] for line in out.splitlines() if line.startswith("| ")]
        col = rows[0].index("wall err")
        errors += [float(r[col].rstrip("%")) / 100 for r in rows[1:] if r[2] == "held out"]
    return {"p10": quantile(errors, 0.1), "p90": quantile(errors, 0.9), "cases": len(errors)}, len(files)


exe, card, cal_file, *folders = sys.argv[1:]
text = open(cal_file).read()
# A file measured on another card of the die: the bands go under sibling_error_bands: <card>, which
# transfer_calibration gives that card (calibration_transfer.hpp).
sibling = card != re.search(r"^card:\s*(\S+)", text, flags=re.M).group(1)
out = subprocess.run([exe, "accuracy", "--card", card, "--calibration", cal_file, "--bands", "--format", "json",
                      "--measured", *folders], check=True, capture_output=True, text=True).stdout
rows = json.loads(out)["error_bands"]
eager = [r for r in rows if r["profile"] == "eager"]
if eager and not sibling:  # the clean walls are the H200 leases' (fit_host_clean.py)
    step = eager_step_band(exe)
    source = eager[0]["source"] + "; steps: transformers 5 eager decode walls no profiler preceded, held out of the host fit (fit_host_clean.py)"
    for r in eager:
        r["source"] = source
    rows = [r for r in rows if not (r["profile"] == "eager" and r["set"] == "step")]
    rows.append(dict(profile="eager", set="step", source=source, **step))
fused = [r for r in rows if r["profile"] == "fused"]
if fused and card in FUSED_STEPS:
    source = (fused[0]["source"] + "; steps: fused_step.py's CUDA-graph steps of production kernels, none fitted ("
              + ", ".join(set_name(p) for p in FUSED_STEPS[card]) + ")")
    for r in fused:
        r["source"] = source
    rows = [r for r in rows if not (r["profile"] == "fused" and r["set"] == "step")]
    rows.append(dict(profile="fused", set="step", source=source, **fused_step_band(exe, card, cal_file)))
compiled = [r for r in rows if r["profile"] == "compiled"]
if compiled and card in COMPILED_STEPS:
    band, sets = compiled_step_band(exe, card, cal_file)
    source = (compiled[0]["source"] + f"; steps: torch.compile'd decode steps' wall, host included, {sets} held-out "
              f"sets ({COMPILED_STEPS[card].split('/')[2]})")
    for r in compiled:
        r["source"] = source
    rows.append(dict(profile="compiled", set="step", source=source, **band))
pad = "    " if sibling else "  "
where = ", ".join(folders) if len(folders) <= 3 else f"{os.path.commonprefix(folders)}*, {len(folders)} folders"
lines = []
for profile in sorted({r["profile"] for r in rows}):
    mine = [r for r in rows if r["profile"] == profile]
    lines.append(f"{pad}{profile}:")
    lines.append(f'{pad}  source: "{mine[0]["source"]} ({where})"')
    for r in sorted(mine, key=lambda r: r["set"]):
        lines.append(f'{pad}  {r["set"]}: {{p10: {r["p10"]:.4f}, p90: {r["p90"]:.4f}, cases: {r["cases"]}}}')
# The file ends with error_bands:, then sibling_error_bands: (one block per card); rewrite the one measured.
at = text.find("\nsibling_error_bands:")
head, cards = (text, {}) if at < 0 else (text[:at + 1], {})
if at >= 0:
    for block in re.split(r"\n(?=  \S)", text[at + 1:].split("\n", 1)[1].rstrip("\n")):
        cards[block.split(":", 1)[0].strip()] = block
if sibling:
    cards[card] = f"  {card}:\n" + "\n".join(lines)
else:
    at = head.find("\nerror_bands:")
    head = (head[:at + 1] if at >= 0 else head).rstrip("\n") + "\n" + "\n".join(
        ["error_bands:   # p10 / p90 of predicted / measured - 1 per profile and set (perfmodel accuracy --bands;"
         " validation/scripts/error_bands.py)"] + lines) + "\n"
text = head.rstrip("\n") + "\n"
if cards:
    text += ("sibling_error_bands:   # the same, measured on another card of the die with this file carried to it"
             " (validation/scripts/error_bands.py)\n" + "\n".join(cards[k] for k in sorted(cards)) + "\n")
open(cal_file, "w").write(text)
print("\n".join(lines))
