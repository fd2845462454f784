"""Branch castcopy: mixrate.jsonl's DRAM streams against the old sum (reads at read_bandwidth plus writes at
write_bandwidth) and the opt-in law (lib/src/cost/stream_rate.cpp), each plus the calibration's floor and one
pass latency. Nothing here was fitted: both laws use hardware/h200.calibration.yaml's two rates.
Usage: python3 validation/results/h200-castcopy/compare_mixrate.py"""
import json, os
HERE = os.path.dirname(os.path.abspath(__file__))
BR, BW, FIXED = 4658.4e9, 3432.33e9, 0.508704e-6 + 0.912999e-6
# ATen's casts between different widths and its copy of an expanded (strided) source run far below DRAM
# (1.1-2.2 TB/s: issue-bound generic paths, the eager profile's cast rates); they are listed, not compared.
ISSUE_BOUND = {"cast_i8_bf16", "cast_bf16_fp32", "cast_i8_fp32", "cast_fp32_i8", "cast_bf16_fp8", "expand4_bf16", "expand7_bf16"}
def old(r, w): return r / BR + w / BW
def new(r, w): return r / BR + w / BW if w <= r else max(w / BR + r / BW, w / BW)
rows = [json.loads(l) for l in open(os.path.join(HERE, "mixrate.jsonl"))]
print(f"{'case':16} {'MB':>6} {'r:w':>6} {'TB/s':>6} {'old':>7} {'new':>7}")
for c in rows:
    if "case" not in c: continue
    r, w, t = c["bytes_read"], c["bytes_written"], c["seconds"]
    ratio = "1:0" if w == 0 else f"{r / w:.2g}:1"
    tag = "  (issue-bound, not compared)" if c["case"] in ISSUE_BOUND else ""
    print(f"{c['case']:16} {(r + w) / 1e6:6.0f} {ratio:>6} {(r + w) / t / 1e12:6.2f} "
          f"{(FIXED + old(r, w)) / t - 1:+7.1%} {(FIXED + new(r, w)) / t - 1:+7.1%}{tag}")
