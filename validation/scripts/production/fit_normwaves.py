#!/usr/bin/env python3
"""Branch normwaves' two numbers (lib/src/cost/aten_kernel_cost.cpp, norm_kernel): ATen's norm kernel in waves
of 16 CTAs an SM, a wave's chain ramping by `norm_wave_ramp` past 8 resident rows an SM, a later partial wave at
`norm_tail_wave` of a first, the normalize's re-read from DRAM once the resident rows spill the L2. Fitted on the
FIRST lease's calls only (validation/results/h200-normwaves/kernels.json: 56 calls, 800-3300 rows), relative
least squares over a grid (ramp 0.50-1.20, tail 0.60-1.10, steps of 0.02); fit_aten.py's floor and chains kept.
Held out: the second lease's calls (second/kernels.json, second/kernels_rows.json: 1-4400 rows) and every other
committed set's eager F.rms_norm / F.layer_norm calls.

    python3 validation/scripts/production/fit_normwaves.py [perfmodel]
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

CAL = "hardware/h200.calibration.yaml"
FIT = "validation/results/h200-normwaves/kernels.json"


def calibration(ramp, tail):
    # Branch normissue's keys out: they take precedence over this law (aten_kernel_cost.cpp, norm_kernel).
    text = re.sub(r"\n      norm_(wave_ramp|tail_wave|issue_ipc|overlap):[^\n]*", "", open(CAL).read())
    text = re.sub(r"\n      norm_ctas_per_sm: [^\n]*", "\n      norm_ctas_per_sm: 16", text)
    return re.sub(r"(\n      norm_ctas_per_sm: 16)",
                  lambda m: m.group(1) + f"\n      norm_wave_ramp: {ramp:.2f}\n      norm_tail_wave: {tail:.2f}", text)


def cases(binary, cal_text, path):
    """(kernel, error, name) of the eager profile's torch.eager F.rms_norm / F.layer_norm calls of a suite."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(cal_text)
    out = subprocess.run([binary, "accuracy", "--card", "h200", "--calibration", f.name, "--measured", path,
                          "--format", "json"], capture_output=True, text=True).stdout
    os.unlink(f.name)
    try:
        found = json.loads(out)["profile_cases"]
    except (ValueError, KeyError):
        return []
    return [(c["kernel"], c["error"], c["name"]) for c in found if c["profile"] == "eager"
            and c["implementation"] == "torch.eager" and c["kernel"] in ("rmsnorm", "layernorm")]


def errors(binary, cal_text, path):
    return [e for _, e, _ in cases(binary, cal_text, path)]


def held_out_table(binary, old_cal, new_cal, labels, skip, odd_half_of):
    """Every committed eager norm suite but `skip`, priced with two calibration texts: prints each suite's and the
    whole's median / p90; `odd_half_of` keeps only the odd case indices of that suite (its even half was fitted)."""
    all_old, all_new = [], []
    for path in sorted(glob.glob("validation/results/h200*/kernels*.json") + glob.glob("validation/results/h200-normwaves/second/*.json")):
        if path == skip:
            continue
        old, now = cases(binary, old_cal, path), cases(binary, new_cal, path)
        if path == odd_half_of:
            odd = {c["name"] for i, c in enumerate(json.load(open(path))["cases"]) if i % 2}
            old, now = [c for c in old if c[2] in odd], [c for c in now if c[2] in odd]
        old, now = [e for _, e, _ in old], [e for _, e, _ in now]
        if old:
            all_old += old
            all_new += now
            print(f"  {os.path.relpath(path, 'validation/results'):40s} {len(old):3d} calls  {labels[0]} {q(old)[0]:5.1f} / "
                  f"{q(old)[1]:5.1f} %  {labels[1]} {q(now)[0]:5.1f} / {q(now)[1]:5.1f} %")
    print(f"every held-out call ({len(all_old)}): {labels[0]} {q(all_old)[0]:.1f} / {q(all_old)[1]:.1f} %, "
          f"{labels[1]} {q(all_new)[0]:.1f} / {q(all_new)[1]:.1f} %")


def q(v):
    v = sorted(abs(x) for x in v)
    return (100 * statistics.median(v), 100 * v[int(0.9 * (len(v) - 1))]) if v else (0, 0)


def main(binary):
    best = None
    for i in range(25, 61):
        for j in range(30, 56):
            e = errors(binary, calibration(i * 0.02, j * 0.02), FIT)
            sse = sum(x * x for x in e)
            if best is None or sse < best[0]:
                best = (sse, i * 0.02, j * 0.02)
    _, ramp, tail = best
    print(f"norm_wave_ramp: {ramp:.2f}, norm_tail_wave: {tail:.2f} (fit: {len(errors(binary, calibration(ramp, tail), FIT))} calls,"
          f" median / p90 {q(errors(binary, calibration(ramp, tail), FIT))})")
    held_out_table(binary, open(CAL).read(), calibration(ramp, tail), ("main", "normwaves"), FIT, None)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel")
