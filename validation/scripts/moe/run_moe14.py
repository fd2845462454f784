#!/usr/bin/env python3
"""h200-moe14: torch._grouped_mm's one-pair experts (issue 11): what makes Qwen3's 8-row experts fast.

    python3 validation/scripts/moe/run_moe14.py OUT_DIR [--budget S]

Committed data (h200-moe5/6/7/9/11/12, fit_grouped_mm9.py --table): r = 8 rows an expert costs
1.27-1.35x r = 128 per K step on Mixtral's gate_up (8 x N 28672, K 2048-4096) and 0.96-1.04x on
Qwen3's (128 x N 1536-4096, K 2048-4096). Flattened over experts, a wave of 66 clusters reads the
SAME B rows in both shapes at equal K (8448 weight rows, 128 B x 2 a K-iteration, rows K x 2 bytes
apart): the B address set cannot tell them apart, so the difference lies in how the experts are cut.
Here the B address set is held (1.88 GB at K 4096, 0.94 GB at K 2048) and the cut varied:
E x N = 8 x 28672, 28 x 8192, 64 x 3584, 128 x 1792 (c = min(N / 128, 66) clusters on one expert
at once: 66, 64, 28, 14), and 8 x 4096 (c = 32) at K 2048 and 4096. Hypotheses and predictions
(r8 / r128 of the whole op; run_moe7.counts_case: equal rows, fp32 check, CUDA-graph replay over
rotating inputs, median of >= 10 samples):
  (S) the A rows shared by the c clusters of one expert at once (L2 lines read by c CTAs in the
      same K-iteration): penalty follows c, not K. Predicted: >= 1.20 at c = 64-66 (E8 x 28672 and
      E28 x 8192 at both K), <= 1.06 at c = 28-32 and <= 1.04 at c = 14 at both K.
  (F) an expert switch at every tile (c < 66: a CTA's next tile, 66 clusters on, is another expert's)
      breaks the wave's lockstep: predicted <= 1.06 for every cut but E8 x 28672, E28 x 8192 included.
  (W) moe11's discriminator, an expert's weight bytes N x K x 2 (none up to 16.8 MB, 1.1-1.3 past 25):
      predicted >= 1.13 at 29-67 MB (E28 / E64 at K 4096, E28 at K 2048, E8 x 4096 at K 4096),
      <= 1.06 at <= 16.8 MB (E128 x 1792 both K, E64 x 3584 and E8 x 4096 at K 2048).
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

# (label, experts, N, K)
CASES = tuple((f"e{E}_n{N}_k{K}", E, N, K) for K in (4096, 2048)
              for E, N in ((8, 28672), (28, 8192), (64, 3584), (128, 1792), (8, 4096))) + \
        (("e128_n1536_k2048", 128, 1536, 2048),)
ROWS = (8, 128)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds for the whole run")
    a = ap.parse_args()
    import harness
    from run_moe5 import run_parts
    from run_moe7 import counts_case
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    harness.init()
    data = dict(meta=dict(harness.device_meta(), torch=torch.__version__,
                          started=datetime.datetime.now(datetime.timezone.utc).isoformat()),
                pair_cases=[])

    def pair_part(deadline, emit, log):
        for label, E, N, K in CASES:
            w = torch.randn(E, N, K, device="cuda", dtype=torch.bfloat16) * K ** -0.5
            for r in ROWS:
                if time.perf_counter() > deadline:
                    log(f"pair {label}: budget")
                    break
                try:
                    res = counts_case(f"{label}_r{r}", E, N, K, [r] * E, w)
                    res["name"] = res["name"].replace("pair7_", "pair14_")
                except Exception as e:  # noqa: BLE001
                    res = dict(name=f"pair14_{label}_r{r}", ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
                emit("pair_cases", res)
            del w
            torch.cuda.empty_cache()

    def describe(part, r):
        return f" {r.get('kernel_family', '')} clk {r.get('sm_clock_mhz_min')}-{r.get('sm_clock_mhz_max')}"
    run_parts(a.out, data, (("pair", pair_part, 1.0),), a.budget, t0, 1.0, describe)


if __name__ == "__main__":
    main()
