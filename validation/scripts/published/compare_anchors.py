#!/usr/bin/env python3
"""perfmodel's prices for the measured anchors of the shared reference (../shared/reference/gpus-and-models.md,
Part C) that it can price, none fitted on: decode tokens/s, GEMM TFLOP/s, copy bandwidth, all-reduce bus bandwidth
on A100, H100, H200, B200 and MI300X, from their published sources (validation/results/published-anchors).

How each kind is priced (the rule was written before any anchor was priced; nothing is tuned to them):
  decode    `perfmodel decode --impl compiled --batch 1 --ctx 105` (gpt-fast and torchao's generate.py: torch.compile,
            a prompt of about 5 tokens and 200 new ones, so 105 tokens of mean context), tokens/s = 1 / step.time_s;
  gemm      `perfmodel gemm --m M --n N --k K --dtype D` (tf32: --dtype fp32 --tf32), 2 M N K / time_s;
  gemm_max  the best of the square sizes 2048-16384 (MAMF searches shapes for the best mean);
  copy      `perfmodel op --kind copy` of a buffer of B bytes (bf16 rows x 2048), 2 B / time_s (read + write counted);
  all_reduce `perfmodel collective --op all_reduce --gpus N --bytes S`, its busbw.
Usage: python3 validation/scripts/published/compare_anchors.py [perfmodel binary] [--json]
"""
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "../../results/published-anchors/anchors.csv")
MAMF_SIZES = (2048, 4096, 6144, 8192, 12288, 16384)


def run(binary, args):
    return json.loads(subprocess.run([binary] + args + ["--format", "json"], capture_output=True, text=True, check=True).stdout)


def gemm_tflops(binary, card, m, n, k, dtype):
    extra = ["--dtype", "fp32", "--tf32"] if dtype == "tf32" else ["--dtype", dtype]
    t = run(binary, ["gemm", "--card", card, "--m", str(m), "--n", str(n), "--k", str(k)] + extra)["time_s"]
    return 2.0 * m * n * k / t / 1e12


def predicted(binary, r):
    kind, card, args = r["kind"], r["card"], r["args"].split()
    if kind == "decode":
        d = run(binary, ["decode", "--model", r["model"], "--card", card, "--batch", "1", "--ctx", "105", "--impl", "compiled"] + args)
        return 1.0 / d["step"]["time_s"]
    if kind == "gemm":
        m, n, k, dtype = args
        return gemm_tflops(binary, card, int(m), int(n), int(k), dtype)
    if kind == "gemm_max":
        return max(gemm_tflops(binary, card, s, s, s, args[0]) for s in MAMF_SIZES)
    if kind == "copy":
        nbytes = int(args[0])
        rows = nbytes // (2 * 2048)
        t = run(binary, ["op", "--card", card, "--kind", "copy", "--rows", str(rows), "--cols", "2048"])["time_s"]
        return 2.0 * rows * 2048 * 2 / t
    if kind == "all_reduce":
        gpus, size = args
        return run(binary, ["collective", "--card", card, "--op", "all_reduce", "--gpus", gpus, "--bytes", size])["busbw"]
    raise ValueError(f"{r['id']}: unknown kind {kind}")


def main(binary, as_json):
    with open(DATA) as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        p = predicted(binary, r)
        m = float(r["measured"])
        out.append(dict(id=r["id"], kind=r["kind"], card=r["card"], model=r["model"], args=r["args"], unit=r["unit"],
                        measured=m, predicted=p, error=p / m - 1, source=r["source"], note=r["note"]))
    if as_json:
        print(json.dumps(out, indent=1))
        return
    print("| anchor | kind | card | workload | measured | predicted | error |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: |")
    for o in out:
        scale, unit = (1e12, "TB/s") if o["unit"] == "B/s" and o["measured"] > 1e12 else (1e9, "GB/s") if o["unit"] == "B/s" else (1, o["unit"])
        print(f"| {o['id']} | {o['kind']} | {o['card']} | {(o['model'] + ' ' + o['args']).strip()} | "
              f"{o['measured'] / scale:.4g} {unit} | {o['predicted'] / scale:.4g} {unit} | {o['error']:+.1%} |")
    a = sorted(abs(o["error"]) for o in out)
    print(f"\n{len(a)} anchors: |error| median {a[len(a) // 2] if len(a) % 2 else (a[len(a) // 2 - 1] + a[len(a) // 2]) / 2:.1%}, "
          f"max {a[-1]:.1%}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--json"]
    main(args[0] if args else "build/tools/perfmodel/perfmodel", "--json" in sys.argv)
