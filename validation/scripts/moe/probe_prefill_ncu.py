#!/usr/bin/env python3
"""Why vLLM-style fused_moe prefills run slower than priced (validation/results/h100-moeh100b: 3-35 % fast): one
layer's two grouped GEMMs (w13, w2) at a few prefill points and a decode reference, each launched twice (the first
compiles), for Nsight Compute to read their DRAM bytes, L2 hit rate, throughputs, stalls and occupancy. Run under ncu:

    ncu --clock-control none -k regex:_fused_moe_gemm --section SpeedOfLight --section MemoryWorkloadAnalysis \\
        --section WarpStateStats --section Occupancy --section LaunchStats \\
        --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second \\
        python3 validation/scripts/moe/probe_prefill_ncu.py

Each case prints `case <model> <phase> T=<tokens> <gemm>` before its two launches.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402

import fused_moe_layer  # noqa: E402
import vllm_style_moe as vmoe  # noqa: E402
from moe_plans import PLAN_MODELS  # noqa: E402

POINTS = (("mixtral-8x7b", 512), ("mixtral-8x7b", 2048), ("mixtral-8x7b", 64), ("mixtral-8x22b", 1024),
          ("qwen3-30b-a3b", 1024), ("deepseek-v2-lite", 1024))


def main():
    models = PLAN_MODELS["moeh100b"]
    gen = torch.Generator(device="cuda").manual_seed(0)
    with torch.no_grad():
        for model in dict.fromkeys(m for m, _ in POINTS):
            E, k, d, I, renorm, shared_I = models[model]
            wts = fused_moe_layer.make_weights(E, d, I, 0, "cuda", gen)
            for m, T in POINTS:
                if m != model:
                    continue
                x = torch.randn(T, d, device="cuda", dtype=torch.bfloat16, generator=gen)
                cfg = vmoe.default_config(T, E)
                topw, ids = vmoe.route(x, wts, k, renorm)
                sorted_ids, expert_ids, post_pad = vmoe.moe_align_block_size(ids, E, cfg["BM"])
                h = torch.empty(T * k, 2 * I, device="cuda", dtype=torch.bfloat16)
                act = torch.randn(T * k, I, device="cuda", dtype=torch.bfloat16, generator=gen)
                y = torch.empty(T * k, d, device="cuda", dtype=torch.bfloat16)
                phase = "decode" if T <= 128 else "prefill"
                for name, a, w, out, tk, mul in (("w13", x, wts["w13"], h, k, False), ("w2", act, wts["w2"], y, 1, True)):
                    print(f"case {model} {phase} T={T} {name} cfg={cfg}", flush=True)
                    for _ in range(2):
                        vmoe.fused_moe_gemm(a, w, out, topw, sorted_ids, expert_ids, post_pad, tk, mul, cfg)
                        torch.cuda.synchronize()
            del wts
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
