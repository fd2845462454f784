#!/bin/bash
# second (last) call: one more process, 58 s limit
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
echo "[0s] start llama2-7b 12 1:2048,32:1024,16:4096" >>$OUT/run2.log
timeout 58 python3 .dev-graph/compiled_gaps.py llama2-7b 12 1:2048,32:1024,16:4096 --out $OUT/compiled2b.jsonl >>$OUT/run2.log 2>&1
echo "rc=$?" >>$OUT/run2.log
