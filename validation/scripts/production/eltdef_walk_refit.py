#!/usr/bin/env python3
"""Branch eltdef, tried and not kept: fit_inductor.py's walk fit (same 6 cases: the even, DRAM-fed,
at most 132-row torch.compile calls of h200-production, -eltwise4 and -eltwise6) with the layer_norm
mask weight of lib/src/cost/inductor_masks.cpp on the walk's issue share: each case's target less
(weight - 1) x blocks x 2048 / (rate / SMs), the compiled rate of hardware/h200.calibration.yaml.

Usage: python3 validation/scripts/production/eltdef_walk_refit.py sym|asym
  sym:  the weight both ways (row-mask-only 2-3 blocks weigh 1.36 / 1.10: their walks longer)
  asym: only weights under 1 (fewer instructions: shorter walks)
Prints looped_row and the two block times (docs/accuracy-notes.md, "Branch eltdef").
"""
import re
import sys

sys.path.insert(0, "validation/scripts/production")
import fit_inductor as F  # noqa: E402

RATE = 7.049e11  # layernorm_elements_per_s, hardware/h200.calibration.yaml


def weight(c):
    """inductor_masks.cpp, inductor_mask_weight."""
    if c["kernel"] != "layernorm" or c["cols"] <= 2048 or c["cols"] % 2048:
        return 1.0
    b = c["cols"] // 2048
    masked = b * 2048 * 14595.0 / (6 * 2048)
    if c["rows"] % 4096 == 0:
        return (2707 + b * 1088) / masked
    return (3826 + b * 1404) / masked if b <= 7 else 1.0


def main(mode):
    paths = ["validation/results/h200-production/kernels.json", "validation/results/h200-eltwise4/kernels.json",
             "validation/results/h200-eltwise6/kernels.json"]
    cases = [c for p in paths for c in F.even_compiled(p)]
    cal = open("hardware/h200.calibration.yaml").read()
    floor = float(re.search(r"^kernel_floor:\s*([0-9.]+)\s*us", cal, re.M).group(1)) * 1e-6
    rd, wr = (float(re.search(rf"^{k}:\s*([0-9.]+)\s*GB/s", cal, re.M).group(1)) * 1e9
              for k in ("read_bandwidth", "write_bandwidth"))

    def stream(c):
        written = 2 * c["rows"] * c["cols"]
        return (c["bytes"] - written) / rd + written / wr

    walked = ["layernorm", "softmax_fused"]
    few = [c for c in cases if c["kernel"] in walked and c["rows"] <= F.SMS and c["rotated_bytes"] >= F.L2_DRAM_FED]

    def adj(c):
        w = weight(c)
        w = min(1.0, w) if mode == "asym" else w
        return (w - 1) * F.blocks(c) * 2048 / (RATE / F.SMS)

    x = [[1.0 / c["measured_s"]] + [F.blocks(c) * (c["kernel"] == o) / c["measured_s"] for o in walked] for c in few]
    y = [(c["measured_s"] - floor - stream(c) - adj(c)) / c["measured_s"] for c in few]
    sol = F.solve(x, y)
    print(f"{mode}: looped_row {sol[0] * 1e6:.3f} us, layernorm_block {sol[1] * 1e6:.3f} us, softmax_block {sol[2] * 1e6:.3f} us")
    for c in few:
        print(f"  {c['kernel']} {c['rows']}x{c['cols']}: weight {weight(c):.3f}, target less {adj(c) * 1e6:.3f} us")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "sym")
