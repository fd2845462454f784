#!/bin/bash
# h200-hfgemma's second call (lead, 2026-12-04, tenth session): hf_kernel_census.py on Gemma-2-9B and, as the Llama
# reference whose launches perfmodel prices within a few kernels, Llama-3.2-1B, both decode b1 ctx 1000.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
timeout 200 python3 validation/scripts/production/hf_kernel_census.py $OUT/census.json gemma2-9b:1:1000 llama3.2-1b:1:1000 > $OUT/census.log 2>&1; echo "census rc=$?"
tail -3 $OUT/census.log
