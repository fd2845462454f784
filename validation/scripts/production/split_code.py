#!/usr/bin/env python3
"""Branch splitred: the Triton source Inductor generates for split row reductions whose chunk divides the
row (65536 / 8) and whose chunk does not (45056 / 6: an even chunk; 20480 / 3, 36864 / 5: odd chunks), for
rms_norm and softmax at 8 rows (torch.compile, static shapes). Writes OUT/split_code.json: per case the
wrapper and kernel sources (torch._inductor.utils.run_and_get_code). Nothing is timed or fitted here.

    python3 validation/scripts/production/split_code.py OUT
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
from torch._inductor.utils import run_and_get_code  # noqa: E402

import eager_ops as eo  # noqa: E402
import split_probe as sp  # noqa: E402

CASES = [("rmsnorm", 8, 65536), ("rmsnorm", 8, 45056), ("rmsnorm", 8, 20480), ("rmsnorm", 8, 36864),
         ("softmax_fused", 8, 45056), ("softmax_fused", 8, 36864)]


def main():
    out = []
    for kernel, rows, cols in CASES:
        torch._dynamo.reset()
        fn = torch.compile(eo.OPS[kernel][0], dynamic=False)
        _, code = run_and_get_code(fn, *sp.inputs(kernel, rows, cols))
        out.append({"kernel": kernel, "rows": rows, "cols": cols, "sources": code})
        print(kernel, rows, cols, sum(len(c) for c in code), flush=True)
    json.dump({"torch": torch.__version__, "cases": out}, open(os.path.join(sys.argv[1], "split_code.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
