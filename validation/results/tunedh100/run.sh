#!/bin/bash
# tunedh100 (planned 2026-12-07, thirty-fourth session; issue 10): vLLM's own H100 fused_moe files for Qwen3-30B-A3B,
# Mixtral-8x7B and DeepSeek-V2-Lite, what a vLLM user on an H100 runs, against vLLM's default config; kernel times as
# h100-tunedmoe's second run took them; prices committed before the run (README.md). An H100, ~2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/tunedh100
nvidia-smi -L > $OUT/tunedh100/card.txt 2>&1; date -u >> $OUT/tunedh100/card.txt
timeout 240 python3 validation/scripts/moe/probe_tuned.py --h100-files $OUT/tunedh100/tuned.jsonl "" \
  qwen3-30b-a3b,mixtral-8x7b,deepseek-v2-lite > $OUT/tunedh100/log.txt 2>&1
echo "probe_tuned rc=$? $(wc -l < $OUT/tunedh100/tuned.jsonl) records"; tail -1 $OUT/tunedh100/log.txt | cut -c1-200
timeout 90 ncu --clock-control none -k regex:_fused_moe_gemm \
  --metrics launch__grid_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks \
  python3 validation/scripts/moe/probe_tuned.py --once --h100-files /dev/null 1,8,16,256 mixtral-8x7b,deepseek-v2-lite \
  > $OUT/tunedh100/ncu.txt 2> $OUT/tunedh100/ncu.err
echo "ncu rc=$? $(grep -c '_fused_moe_gemm_kernel (' $OUT/tunedh100/ncu.txt) kernels"
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/tunedh100/card.txt; date -u >> $OUT/tunedh100/card.txt
cd $OUT && tar czf h.tgz tunedh100 && rm -rf tunedh100
