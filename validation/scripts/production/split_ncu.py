#!/usr/bin/env python3
"""Branch splitred's last call: Nsight Compute on Inductor's split rms_norm partial (torch.compile, static
shapes) where the chunk divides the row (65536 / 8, 65536 / 4), is even but does not divide (45056 / 6) and is
odd (20480 / 3, 36864 / 5): instructions, global load requests and sectors, DRAM bytes and duration per partial,
to tell why odd chunks (2-byte loads, split_code.json) run up to 2x. Each shape is called twice after a warm-up
call; run under ncu (validation/results/h200-splitred/ncu.sh). Nothing is fitted here.

    split_ncu.py [rmsnorm,softmax_fused,layernorm] [grid3]   # default rmsnorm (ncu.sh); ncu2.sh (h200-splitodd) all
    three; probe3.sh all three at split_probe.py's SHAPES3
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import eager_ops as eo  # noqa: E402
import split_probe as sp  # noqa: E402

SHAPES = [(8, 65536), (8, 20480), (8, 36864), (128, 45056), (180, 65536), (180, 36864), (180, 20480)]
# ncu2.sh (ninth session): softmax's and layer_norm's partials at the same chunk classes, and rms_norm's at more
SHAPES2 = SHAPES + [(64, 36864), (250, 45056), (40, 20480)]


def main():
    ops = sys.argv[1].split(",") if len(sys.argv) > 1 else ["rmsnorm"]
    shapes = SHAPES if ops == ["rmsnorm"] else SHAPES2
    if len(sys.argv) > 2 and sys.argv[2] == "grid3":  # ncu3.sh: split_probe.py's SHAPES3
        shapes = sp.SHAPES3
    for op in ops:
        for rows, cols in shapes:
            measure(op, rows, cols)


def measure(op, rows, cols):
    torch._dynamo.reset()
    fn = torch.compile(eo.OPS[op][0], dynamic=False)
    args = sp.inputs(op, rows, cols)
    fn(*args)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("measure")  # ncu --nvtx-include measure/: not the autotuner's launches
    for _ in range(2):
        fn(*args)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print(op, rows, cols, flush=True)


if __name__ == "__main__":
    main()
