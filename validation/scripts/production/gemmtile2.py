#!/usr/bin/env python3
"""Branch gemmtile2 (issue 10): the model against the mid-M cuBLASLt sweep (validation/results/h200-gemmtile/sweep).

    python3 validation/scripts/production/gemmtile2.py BINARY [CALIBRATION] [--cases] [--tiles]

Fit / held out (fixed before the data, validation/results/h200-gemmtile/README.md): a case is held out when
zlib.crc32(name) % 2 == 1. Errors are `perfmodel accuracy`'s (the harness's clock under the power cap included),
fused and eager profiles; families by the kernels cuBLASLt ran (torch.profiler names in kernels.json): nvjet tile
(one unsplit nvjet kernel), nvjet split-K (`_splitK` + splitKreduce), tf32 xmma, align1 (CUTLASS sm75).
--cases prints every case (measured tile / split against the model's, from `perfmodel gemm --format json`);
--tiles prints the tile agreement counts. --clock: the clock-matched subset (cases whose clock held within 30 MHz; the
compute term scaled to that clock: it over-corrects, see README). --clockgroups: nvjet cases by the clock the model
assumes (accuracy's prediction over `perfmodel gemm`'s full-clock time) and the clock the case ran at. --forced: on the
nvjet tile cases that ran at a steady >= 1900 MHz and that the model prices at the full clock, the model against
cuBLASLt's own tile (from the name) priced in whole waves (ceil(grid / 132) tiles an SM at gemm_peak x the nvjet knee,
the model's fixed and memory terms), by grid size. --splits: cuBLASLt's split / unsplit choice on the nvjet cases by its
tile's grid (from the name) and K. --percycle: bf16 / fp16 nvjet cases of >= 50 GFLOP whose clock held within 30 MHz,
FLOPs over (time x NVML clock x 132 SMs x 4096 FLOP a clock an SM), by clock.
"""
import json
import os
import re
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from targets import quantile  # noqa: E402

SWEEP = "validation/results/h200-gemmtile/sweep/kernels.json"
FAMILIES = ("nvjet tile", "nvjet split-K", "tf32 xmma", "align1")


def held_out(name):
    return zlib.crc32(name.encode()) % 2 == 1


def family(case):
    s = " ".join(k for k in case["kernel_names"] if "Memset" not in k)
    if "align1" in s:
        return "align1"
    if "xmma" in s:
        return "tf32 xmma"
    if "splitK" in s:
        return "nvjet split-K"
    return "nvjet tile"


def measured_tile(case):
    """cuBLASLt's tile as tokens x weight rows (the model's Tile order), its stages, and whether it split K.
    nvjet names are weight rows x tokens (gemm_tiling.hpp), as are the align1 CUTLASS names (vocab x tokens,
    docs/accuracy-notes.md "Branch gemmtile"); xmma's tilesize{tm}x{tn} has tm along the tokens (xmma_tf32.hpp).
    An xmma `segment_k_on` kernel streams its partial wave along K: counted as a split."""
    s = " ".join(k for k in case["kernel_names"] if "Memset" not in k)
    m = re.search(r"nvjet_sm90_\w+?_(\d+)x(\d+)_(\d+)x(\d+)_", s)
    if m:
        return f"{m.group(2)}x{m.group(1)}", int(m.group(4)), "splitK" in s
    m = re.search(r"tilesize(\d+)x(\d+)x\d+", s)
    if m:
        return f"{m.group(1)}x{m.group(2)}", 0, "segment_k_on" in s
    m = re.search(r"gemm_bf16_(\d+)x(\d+)_", s)
    if m:
        return f"{m.group(2)}x{m.group(1)}", 0, False
    return "?", 0, False


def run(args):
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def accuracy(binary, calib):
    extra = ["--calibration", calib] if calib else []
    out = json.loads(run([binary, "accuracy", "--card", "h200", "--measured", SWEEP, "--format", "json"] + extra))
    return {(c["name"], c["profile"]): c for c in out["profile_cases"] if c["kernel"] == "gemm"}


def model_plan(binary, calib, c, impl):
    args = [binary, "gemm", "--card", "h200", "--m", str(c["m"]), "--n", str(c["n"]), "--k", str(c["k"]),
            "--impl", impl, "--format", "json"]
    args += ["--dtype", "fp32", "--tf32"] if c["dtype"] == "tf32" else ["--dtype", c["dtype"]]
    if calib:
        args += ["--calibration", calib]
    d = json.loads(run(args))
    return d["tile"], d["split_k"], d["tiles"], d["waves"]


CLOCK_MAX_MHZ = 1980
STEADY_MHZ = 30


def explain_terms(binary, calib, c, impl):
    """(fixed, compute, memory) of `perfmodel gemm --explain`'s device-time line (compute at the full clock)."""
    args = [binary, "gemm", "--card", "h200", "--m", str(c["m"]), "--n", str(c["n"]), "--k", str(c["k"]),
            "--impl", impl, "--explain"]
    args += ["--dtype", "fp32", "--tf32"] if c["dtype"] == "tf32" else ["--dtype", c["dtype"]]
    if calib:
        args += ["--calibration", calib]
    out = run(args)
    m = re.search(r"device time = fixed \+ max\(compute, memory\)\s*\n\s*= ([0-9.e+-]+) \+ max\(([0-9.e+-]+), ([0-9.e+-]+)\)", out)
    return tuple(float(x) for x in m.groups())


def clock_matched_error(binary, calib, c, impl):
    """The model's time at the clock the case ran at (cases whose samples all ran within STEADY_MHZ): the compute
    term scaled by full clock / measured clock, fixed and memory terms as they are; None where the clock moved."""
    lo, hi = c["sm_clock_mhz_min"], c["sm_clock_mhz_max"]
    if not lo or hi - lo > STEADY_MHZ:
        return None
    fixed, compute, memory = explain_terms(binary, calib, c, impl)
    clk = 0.5 * (lo + hi)
    return (fixed + max(compute * CLOCK_MAX_MHZ / clk, memory)) / c["measured_s"] - 1


def fmt(errors):
    a = [abs(e) for e in errors]
    if not a:
        return "-"
    return f"{100 * quantile(a, 0.5):.1f} / {100 * quantile(a, 0.9):.1f} ({len(a)})"


def signed(errors):
    return f"{100 * sum(errors) / len(errors):+.1f}" if errors else "-"


def main():
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    pos = [a for a in sys.argv[1:] if not a.startswith("--")]
    binary = pos[0]
    calib = pos[1] if len(pos) > 1 else None
    cases = json.load(open(SWEEP))["cases"]
    acc = accuracy(binary, calib)
    print(f"calibration: {calib or 'hardware/h200.calibration.yaml (default)'}")
    print("| half | profile | all | nvjet tile | nvjet split-K | tf32 xmma | align1 | signed mean % |")
    print("|---|---|---|---|---|---|---|---|")
    for half, keep in (("held out", held_out), ("fit", lambda n: not held_out(n))):
        for prof in ("fused", "eager"):
            row = [acc[(c["name"], prof)]["error"] for c in cases if keep(c["name"])]
            fams = [fmt([acc[(c["name"], prof)]["error"] for c in cases if keep(c["name"]) and family(c) == f])
                    for f in FAMILIES]
            print(f"| {half} | {prof} | {fmt(row)} | " + " | ".join(fams) + f" | {signed(row)} |")
    if "--clock" in flags:
        # The sweep's clock moved with the cases before each one (0.2 s a case, shuffled): only 54 of 266 ran steady
        # at 1980 MHz. On the cases whose clock held still, the model at that clock isolates tile / split / pace.
        print(f"\nclock-matched (cases whose samples ran within {STEADY_MHZ} MHz; model's compute at that clock), fused:")
        print("| half | accuracy's error | clock-matched | nvjet tile | nvjet split-K | tf32 xmma | align1 | signed mean % |")
        print("|---|---|---|---|---|---|---|---|")
        cm = {c["name"]: clock_matched_error(binary, calib, c, "fused") for c in cases}
        for half, keep in (("held out", held_out), ("fit", lambda n: not held_out(n))):
            sub = [c for c in cases if keep(c["name"]) and cm[c["name"]] is not None]
            row = [cm[c["name"]] for c in sub]
            fams = [fmt([cm[c["name"]] for c in sub if family(c) == f]) for f in FAMILIES]
            print(f"| {half} | {fmt([acc[(c['name'], 'fused')]['error'] for c in sub])} | {fmt(row)} | " + " | ".join(fams)
                  + f" | {signed(row)} |")
        if "--cases" in flags:
            for c in sorted(cases, key=lambda c: cm[c["name"]] if cm[c["name"]] is not None else 9):
                if cm[c["name"]] is not None:
                    mt, stages, msplit = measured_tile(c)
                    print(f"CM {'H' if held_out(c['name']) else 'F'} {c['name']:<40} {family(c):<13} {mt:>8}"
                          f"{'/split' if msplit else '      '} S{stages:<2} clk {c['sm_clock_mhz_min']}"
                          f" acc {100 * acc[(c['name'], 'fused')]['error']:+6.1f}% matched {100 * cm[c['name']]:+6.1f}%")
    if "--clockgroups" in flags or "--forced" in flags:
        full_clock = {}
        for c in cases:
            if not family(c).startswith("nvjet"):
                continue
            args = [binary, "gemm", "--card", "h200", "--m", str(c["m"]), "--n", str(c["n"]), "--k", str(c["k"]),
                    "--dtype", c["dtype"], "--format", "json"] + (["--calibration", calib] if calib else [])
            full_clock[c["name"]] = json.loads(run(args))["time_s"]
        groups = {}
        for c in cases:
            if c["name"] not in full_clock:
                continue
            capped = acc[(c["name"], "fused")]["predicted_s"] > 1.001 * full_clock[c["name"]]
            lo, hi = c["sm_clock_mhz_min"], c["sm_clock_mhz_max"]
            ran = ("steady >= 1900 MHz" if lo >= 1900 and hi - lo <= STEADY_MHZ else
                   "steady < 1900 MHz" if hi - lo <= STEADY_MHZ else "clock moved")
            key = ("model: capped clock" if capped else "model: full clock", ran)
            groups.setdefault(key, []).append(c)
        if "--clockgroups" in flags:
            print("\nnvjet cases (fused) by the clock the model assumes and the clock the case ran at:")
            print("| model assumes | case ran | cases | median / p90 | signed mean % |")
            print("|---|---|---|---|---|")
            for key in sorted(groups):
                e = [acc[(c["name"], "fused")]["error"] for c in groups[key]]
                print(f"| {key[0]} | {key[1]} | {len(e)} | {fmt(e).rsplit(' (', 1)[0]} | {signed(e)} |")
        if "--forced" in flags:
            peak = None
            rows = []
            for c in groups.get(("model: full clock", "steady >= 1900 MHz"), []):
                if family(c) != "nvjet tile":
                    continue
                fixed, compute, memory = explain_terms(binary, calib, c, "fused")
                if peak is None:
                    peak = float(re.search(r"roof: ([0-9.e+]+) FLOP/s", run(
                        [binary, "gemm", "--card", "h200", "--m", "1024", "--n", "1024", "--k", "1024", "--explain"]
                        + (["--calibration", calib] if calib else []))).group(1))
                mt, _, _ = measured_tile(c)
                tm, tn = (int(x) for x in mt.split("x"))
                grid = -(-c["m"] // tm) * -(-c["n"] // tn)
                eff = min(1.0, tm * tn / (tm + tn) / 57.0)  # nvjet's knee (gemm_tiling.cpp kNvjetReuseKnee)
                t = fixed + max(-(-grid // 132) * 2 * tm * tn * c["k"] / (peak / 132 * eff), memory)
                rows.append((grid, acc[(c["name"], "fused")]["error"], t / c["measured_s"] - 1))
            print("\nnvjet tile cases at a steady >= 1900 MHz the model prices at the full clock: the model against "
                  "cuBLASLt's own tile in whole waves")
            print("| grid (cuBLASLt's tile) | cases | model | cuBLASLt's tile, whole waves |")
            print("|---|---|---|---|")
            for lab, lo, hi in (("<= 132 (one wave)", 0, 132), ("133-264", 133, 264), ("> 264", 265, 1 << 30)):
                sub = [r for r in rows if lo <= r[0] <= hi]
                if sub:
                    print(f"| {lab} | {len(sub)} | {fmt([r[1] for r in sub]).rsplit(' (', 1)[0]} (signed {signed([r[1] for r in sub])}) | "
                          f"{fmt([r[2] for r in sub]).rsplit(' (', 1)[0]} (signed {signed([r[2] for r in sub])}) |")
    if "--percycle" in flags:
        bands = {}
        for c in cases:
            lo, hi = c["sm_clock_mhz_min"], c["sm_clock_mhz_max"]
            if not family(c).startswith("nvjet") or hi - lo > STEADY_MHZ or c["flops"] < 5e10:
                continue
            band = "1900-1980" if lo >= 1900 else "1600-1899" if lo >= 1600 else "1300-1599"
            bands.setdefault(band, []).append(c["flops"] / (c["measured_s"] * lo * 1e6 * 132 * 4096))
        print("\nnvjet calls >= 50 GFLOP at a steady clock: work per clock over 4096 FLOP / clock / SM x 132")
        print("| NVML clock MHz | cases | min | median | max |")
        print("|---|---|---|---|---|")
        for band in ("1900-1980", "1600-1899", "1300-1599"):
            v = sorted(bands.get(band, []))
            if v:
                print(f"| {band} | {len(v)} | {v[0]:.2f} | {quantile(v, 0.5):.2f} | {v[-1]:.2f} |")
    if "--splits" in flags:
        table = {}
        for c in cases:
            if not family(c).startswith("nvjet"):
                continue
            mt, _, split = measured_tile(c)
            tm, tn = (int(x) for x in mt.split("x"))
            grid = -(-c["m"] // tm) * -(-c["n"] // tn)
            g = "<= 66" if grid <= 66 else "67-132" if grid <= 132 else "> 132"
            kb = "4096-5120" if c["k"] <= 5120 else "6144-8192" if c["k"] <= 8192 else "11008-16384"
            table.setdefault((g, kb), [0, 0])[1 if split else 0] += 1
        print("\ncuBLASLt's nvjet calls: unsplit / split, by its tile's grid (CTAs before any split) and K")
        print("| grid | K 4096-5120 | K 6144-8192 | K 11008-16384 |")
        print("|---|---|---|---|")
        for g in ("<= 66", "67-132", "> 132"):
            print(f"| {g} | " + " | ".join("%d / %d" % tuple(table.get((g, kb), [0, 0]))
                                          for kb in ("4096-5120", "6144-8192", "11008-16384")) + " |")
    if "--cases" in flags or "--tiles" in flags:
        agree = {}
        lines = []
        for c in sorted(cases, key=lambda c: (family(c), c["m"], c["n"], c["k"])):
            mt, stages, msplit = measured_tile(c)
            tile, split, tiles, waves = model_plan(binary, calib, c, "fused")
            f = family(c)
            same_split = (split > 1) == msplit
            key = (f, "tile+split agree" if tile == mt and same_split else
                   "split agrees" if same_split else "split differs")
            agree[key] = agree.get(key, 0) + 1
            e = acc[(c["name"], "fused")]["error"]
            ee = acc[(c["name"], "eager")]["error"]
            lines.append(f"{'H' if held_out(c['name']) else 'F'} {c['name']:<40} {f:<13} meas {mt:>8}"
                         f"{'/split' if msplit else '      '} S{stages:<2} model {tile:>8}/{split:<2} tiles {tiles:>4}"
                         f" waves {waves} fused {100 * e:+6.1f}% eager {100 * ee:+6.1f}%  {1e6 * c['measured_s']:8.2f} us")
        if "--cases" in flags:
            print("\n".join(lines))
        print("| family | tile + split agree | split agrees, tile differs | split differs |")
        print("|---|---|---|---|")
        for f in FAMILIES:
            print(f"| {f} | {agree.get((f, 'tile+split agree'), 0)} | {agree.get((f, 'split agrees'), 0)} | "
                  f"{agree.get((f, 'split differs'), 0)} |")


if __name__ == "__main__":
    main()
