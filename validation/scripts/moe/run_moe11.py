#!/usr/bin/env python3
"""h200-moe11: two hypotheses of branch moe11 (issue 11), one call. Predictions stated before the run.

    python3 validation/scripts/moe/run_moe11.py OUT_DIR [--budget S]

(1) The fused profile's top-k at decode (vllm_style_moe.py _topk_softmax_kernel, one warp a token):
    a round's and the softmax's local work costs 12 SM cycles per element a lane holds (n = EP / 32,
    at least 1; two chained 4-cycle reductions + four issue slots), on top of a 214-cycle round
    (lib/src/kernels/moe_topk.cpp). Predicted at T = 1 (us, the branch's binary): 1024 x k 8 3.62
    (T = 64: 3.84), 512 x k 2 1.51, 256 x k 2 1.37, 64 x k 16 2.94; repeats 128 x 8 2.09,
    512 x 10 3.16. Each as run_moe8.case (checked first, torch.profiler over 20 calls, median).
(2) torch._grouped_mm's pingpong kernel (64 x 128 tiles, 2 x 1 clusters, 66 clusters walking the
    tile list together): a one-pair expert's penalty (r = 8 against r = 128 per K step) follows the
    clusters that work one expert at once, min(66, N / 128), not the expert count. Predicted
    r8 / r128: within 5 % of 1 at 12 clusters an expert (E 128 x N 1536 and E 32 x N 1536), growing
    through 20 and 24 (N 2560, 3072) to >= 1.2 at 32 (E 128 x N 4096, as Mixtral's down at 32). The
    rival, the expert count (Qwen3's 128 flat, DeepSeek-V2-Lite's 64 and Mixtral's split 64 not):
    E 32 x N 1536 penalised, every E = 128 shape flat. All at K 2048, run_moe7.counts_case (equal
    rows, checked against fp32 first, CUDA graph over rotating inputs, median of >= 10 samples).
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

# (model label, experts, k, renorm, hidden, tokens)
TOPK = (("1024e-k8", 1024, 8, True, 2048, (1, 64)), ("512e-k2", 512, 2, True, 2048, (1,)),
        ("256e-k2", 256, 2, True, 7168, (1,)), ("64e-k16", 64, 16, True, 2048, (1,)),
        ("qwen3-30b-a3b", 128, 8, True, 2048, (1,)), ("qwen3-next-512e", 512, 10, True, 2048, (1,)))
# (label, experts, N, K): clusters an expert min(66, N / 128)
PAIRS = (("e128_n1536", 128, 1536, 2048), ("e32_n1536", 32, 1536, 2048), ("e128_n2560", 128, 2560, 2048),
         ("e128_n3072", 128, 3072, 2048), ("e128_n4096", 128, 4096, 2048))


def topk_part(deadline, emit, log):
    import run_moe8
    for label, E, k, renorm, d, tokens in TOPK:
        for T in tokens:
            if time.perf_counter() > deadline:
                log(f"topk {label} T{T}: budget")
                return
            try:
                r = run_moe8.case(label, E, k, renorm, d, T)
            except Exception as e:  # noqa: BLE001
                r = dict(model=label, experts=E, top_k=k, tokens=T, ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
            r["name"] = f"topk11_{label}_T{T}"
            r["median_s"] = r.get("topk_softmax_s", {}).get("median")
            emit("routing_cases", r)


def pair_part(deadline, emit, log):
    for label, E, N, K in PAIRS:
        w = torch.randn(2 * E, N, K, device="cuda", dtype=torch.bfloat16) * K ** -0.5
        for r in (8, 128):
            if time.perf_counter() > deadline:
                log(f"pair {label}: budget")
                break
            try:
                res = counts_case(f"{label}_r{r}", E, N, K, [r] * E, w)
                res["name"] = res["name"].replace("pair7_", "pair11_")
            except Exception as e:  # noqa: BLE001
                res = dict(name=f"pair11_{label}_r{r}", ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
            emit("pair_cases", res)
        del w
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds for the whole run")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    harness.init()
    data = dict(meta=dict(harness.device_meta(), torch=torch.__version__,
                          started=datetime.datetime.now(datetime.timezone.utc).isoformat()),
                routing_cases=[], pair_cases=[])

    def describe(part, r):
        return f" {r.get('kernel_family', '')} clk {r.get('sm_clock_mhz_min')}-{r.get('sm_clock_mhz_max')}"
    run_parts(a.out, data, (("topk", topk_part, 0.4), ("pair", pair_part, 0.6)), a.budget, t0, 1.3, describe)


if __name__ == "__main__":
    main()
