#!/usr/bin/env python3
"""quant8's run on one H200 (issue 12, results in validation/results/h200-quant8): new shapes for
torch._weight_int8pack_mm (W8A16), measured AFTER quant8 set its launch-shape model
(lib/src/cost/quant_gemm_cost.cpp, int8pack_cost) on h200-quant's fit half, so all of them are held out:

    python3 validation/scripts/quant/run_quant8.py OUT_DIR [--budget S] [--case-seconds S]

ATen's weight_int8pack_mm_kernel (PyTorch 2.11, at::native, int8mm.cu) runs one thread per output
in 16 x 16 blocks (16 output channels x 16 rows of x), each thread walking all of K alone. The cases
probe what the model says follows from that launch shape:
  blocks   M = 16 / 32 at N just below and above a multiple of 16 x 132 (the busiest SM's block
           count doubles from N = 2112 to 2128: the model says the time does too)
  resident M = 1 and 4, K = 4096, N = 12288..24576: 768..1536 blocks around the 8 blocks of 256
           threads an SM holds (1056 on the card)
  chain    M = 1, N = 4096, K = 1024..8192: the K loop's per-step latency
Every case through quant_gemm.py's int8 case and run_one (correctness first, CUDA graph over
rotating sets, median of >= 10 samples). OUT_DIR/quant8.json is rewritten after every case.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, HERE)
import torch  # noqa: E402

import harness  # noqa: E402
import quant_gemm  # noqa: E402


def plan():
    out = []
    for n in (2112, 2128, 4224, 4240, 8448, 8464):
        out.append(("blocks", n, 4096, 16))
    for n in (2112, 2128):
        out += [("blocks", n, 4096, 32), ("blocks", n, 4096, 1)]
    for n in (12288, 16384, 16896, 17408, 20480, 24576):
        out.append(("resident", n, 4096, 1))
    for n in (12288, 16896, 17408, 24576):
        out.append(("resident", n, 4096, 4))
    for k in (1024, 2048, 8192):
        out.append(("chain", 4096, k, 1))
    return out


def make(it):
    tag, n, k, m = it
    return quant_gemm.gemm_case("quant8", f"{tag}_n{n}_k{k}", n, k, m, "int8")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--case-seconds", type=float, default=0.05)
    a = ap.parse_args()
    log, meta, t0 = quant_gemm.start_run(a.out, "run.log", a.case_seconds)
    harness.MIN_SAMPLES = 10
    meta["harness"] = meta["harness"].replace("MIN_SAMPLES=5", "MIN_SAMPLES=10")
    log(f"meta {json.dumps(meta)}")
    res = {"schema_version": 1, "meta": meta, "cases": []}

    def save():
        with open(f"{a.out}/quant8.json.tmp", "w") as f:
            json.dump(res, f, indent=1)
        os.replace(f"{a.out}/quant8.json.tmp", f"{a.out}/quant8.json")
    items = plan()
    log(f"{len(items)} cases")
    quant_gemm.measure_items(items, make, res["cases"], log, save, t0 + a.budget, a.case_seconds)
    save()
    log("done")
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
