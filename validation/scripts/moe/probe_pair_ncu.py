#!/usr/bin/env python3
"""h200-moe6 (b): one launch of each case under Nsight Compute, to read where the time of
run_moe6.py's cases goes (DRAM and L2 bytes, throughputs, grid and occupancy). Run under ncu:

    ncu --clock-control none -k regex:'device_kernel|_fused_moe_gemm' --section SpeedOfLight \
        --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
        --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum \
        python3 probe_pair_ncu.py

Cases (printed in launch order, one CUTLASS or Triton GEMM kernel each):
  torch._grouped_mm pingpong at Mixtral-8x7B gate_up (8 x 28672 x 4096) with 8, 64 and 128 rows on
  every expert, Mixtral down (8 x 4096 x 14336) at 8 and 128 rows, Qwen3-30B-A3B gate_up
  (128 x 1536 x 2048) at 8 and 128 rows; vllm_style_moe.py's GEMM (w2 form, T = 32, 64 x 64 x 32
  tile) at Mixtral's w2 (4096 x 14336) and w13 (28672 x 4096) shapes.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch  # noqa: E402

import vllm_style_moe as vmoe  # noqa: E402

PAIRS = (("mixtral_gate_up", 8, 28672, 4096, (8, 64, 128)), ("mixtral_down", 8, 4096, 14336, (8, 128)),
         ("qwen3_gate_up", 128, 1536, 2048, (8, 128)))


def main():
    for label, E, N, K, rows in PAIRS:
        w = torch.randn(E, N, K, device="cuda", dtype=torch.bfloat16) * K ** -0.5
        for r in rows:
            x = torch.randn(E * r, K, device="cuda", dtype=torch.bfloat16)
            offs = torch.arange(1, E + 1, device="cuda", dtype=torch.int32) * r
            print(f"case pair6_{label}_r{r}", flush=True)
            torch._grouped_mm(x, w.transpose(-2, -1), offs=offs)
            torch.cuda.synchronize()
        del w
        torch.cuda.empty_cache()
    E, k, T = 8, 2, 32
    logits = torch.randn(T, E, device="cuda")
    topw, ids = torch.topk(torch.softmax(logits, -1), k, dim=-1)
    topw, ids = (topw / topw.sum(-1, keepdim=True)).float().contiguous(), ids.to(torch.int32).contiguous()
    cfg = vmoe.default_config(T, E)
    sorted_ids, expert_ids, post_pad = vmoe.moe_align_block_size(ids, E, cfg["BM"])
    for N, K in ((4096, 14336), (28672, 4096)):
        w = torch.randn(E, N, K, device="cuda", dtype=torch.bfloat16) * K ** -0.5
        a = torch.randn(T * k, K, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(T * k, N, device="cuda", dtype=torch.bfloat16)
        vmoe.fused_moe_gemm(a, w, out, topw, sorted_ids, expert_ids, post_pad, 1, True, cfg)  # compile
        torch.cuda.synchronize()
        print(f"case fmoe6_N{N}_K{K}_default (second launch)", flush=True)
        vmoe.fused_moe_gemm(a, w, out, topw, sorted_ids, expert_ids, post_pad, 1, True, cfg)
        torch.cuda.synchronize()
        del w


if __name__ == "__main__":
    main()
