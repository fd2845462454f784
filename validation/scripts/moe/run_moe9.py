#!/usr/bin/env python3
"""h200-moe9: is torch._grouped_mm's partial-pair penalty set by K? (issue 11, branch moe9), one call.

    python3 validation/scripts/moe/run_moe9.py OUT_DIR [--budget S]

Committed cases (fit_grouped_mm9.py --table) run the pingpong kernel's one-pair experts of 8-64
rows at 0.34-0.38 us per 64-deep K step of a CTA tile at Mixtral's shapes (K 4096, 14336) and
DeepSeek-V2-Lite's, against 0.28-0.31 when the pair is full, while Qwen3's gate_up (K = 2048, 128
experts of N = 1536) runs its partial pairs at 0.32-0.35, as fast as its full ones. Hypothesis
tested: the penalty grows with K (the K-loop's length), not with the expert count or N. Cases
(run_moe7.counts_case: equal rows r on every expert, the pingpong kernel, checked against fp32
first, CUDA graph, rotating input sets): r = 8, 64, 128 on
  Mixtral's gate_up with K halved  (8 x 28672 x 2048) and quartered (8 x 28672 x 1024),
  Qwen3's gate_up with K doubled   (128 x 1536 x 4096) and quadrupled (128 x 1536 x 8192),
and the two originals as this lease's controls (r = 8, 128).
"""
import argparse
import datetime
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, os.path.join(HERE, "..", "quant"))
import torch  # noqa: E402

import harness  # noqa: E402
from run_moe5 import run_parts  # noqa: E402
from run_moe7 import counts_case  # noqa: E402

SHAPES = (("mixtral_gate_up_k2048", 8, 28672, 2048, (8, 64, 128)),
          ("qwen3_gate_up_k4096", 128, 1536, 4096, (8, 64, 128)),
          ("qwen3_gate_up", 128, 1536, 2048, (8, 128)),
          ("mixtral_gate_up", 8, 28672, 4096, (8, 128)),
          ("mixtral_gate_up_k1024", 8, 28672, 1024, (8, 64, 128)),
          ("qwen3_gate_up_k8192", 128, 1536, 8192, (8, 64, 128)))


def pair_part(deadline, emit, log):
    for label, E, N, K, rows in SHAPES:
        w = torch.randn(2 * E, N, K, device="cuda", dtype=torch.bfloat16) * K ** -0.5
        for r in rows:
            if time.perf_counter() > deadline:
                log(f"pair {label}: budget")
                break
            try:
                res = counts_case(f"{label}_r{r}", E, N, K, [r] * E, w)
                res["name"] = res["name"].replace("pair7_", "pair9_")
            except Exception as e:
                res = dict(name=f"pair9_{label}_r{r}", ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
            emit("pair_cases", res)
        del w
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=90.0, help="seconds for the whole run")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    harness.init()
    data = dict(meta=dict(harness.device_meta(), torch=torch.__version__,
                          started=datetime.datetime.now(datetime.timezone.utc).isoformat()), pair_cases=[])

    def describe(part, r):
        return f" {r.get('kernel_family', '')} clk {r.get('sm_clock_mhz_min')}-{r.get('sm_clock_mhz_max')}"
    run_parts(a.out, data, (("pair", pair_part, 1.0),), a.budget, t0, 1.0, describe)


if __name__ == "__main__":
    main()
