#!/bin/bash
# queuencu (planned 2026-12-07, thirty-ninth session; issue 10; exploratory, nothing priced or fitted): Nsight Compute's
# launch limits of queuecheck's eight tiles on DeepSeek-V2-Lite at 2048 tokens, to read the CTAs an SM and Triton's
# shared-memory buffers of each (the price counts `stages` buffers at BLOCK_M a multiple of 64, `stages - 1` below;
# queuecheck's 2-stage BLOCK_M 64 tiles ran 10-27 % faster than priced). H100 or H200, ~2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/queuencu
nvidia-smi -L > $OUT/queuencu/card.txt 2>&1; date -u >> $OUT/queuencu/card.txt
if command -v ncu > /dev/null; then
  timeout ${QUEUE_NCU_TIMEOUT:-240} ncu --clock-control none -k regex:_fused_moe_gemm \
    --metrics launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks \
    python3 validation/scripts/moe/probe_stages.py --queue $OUT/queuencu/stages.jsonl 2048 deepseek-v2-lite > $OUT/queuencu/ncu.txt 2> $OUT/queuencu/ncu.err
  echo "ncu rc=$? $(grep -c '_fused_moe_gemm_kernel' $OUT/queuencu/ncu.txt) kernels"
else
  echo "no ncu" | tee $OUT/queuencu/ncu.err
fi
date -u >> $OUT/queuencu/card.txt
cd $OUT && tar czf n.tgz queuencu && rm -rf queuencu
