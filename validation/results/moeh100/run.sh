#!/bin/bash
# moeh100's device run (planned 2026-12-06, twenty-seventh session), from the repository root, OUT set:
# validation/scripts/moe/run_fused2.py unchanged (h200-moe-fused2's cases: vLLM-style fused MoE layers of Qwen3-30B-A3B,
# Mixtral-8x7B and DeepSeek-V2-Lite at T = 1-64 and 2048; 64-head-tile MLA decode of DeepSeek-V2-Lite and -V3 at batch
# 1-64, ctx 512-32768) on whichever card the lease gives. About 1 min.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/nvidia-smi.txt 2>&1
cd validation/scripts/moe && timeout 250 python3 run_fused2.py $OUT --budget 190 > /dev/null 2>&1; echo "run_fused2 rc=$?"
tail -n 3 $OUT/run.log
