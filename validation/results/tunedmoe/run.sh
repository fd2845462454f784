#!/bin/bash
# tunedmoe (planned 2026-12-06, thirty-first session; issue 10): vLLM's tuned fused_moe configs against its default,
# measured on the lent card (validation/scripts/moe/probe_tuned.py says why and what). ~2-3 min; OUT set.
# A short lease: TUNED_TOKENS=1,16,64,256,2048 TUNED_TIMEOUT=150 (a subset of the tokens, the same prices).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/tuned
nvidia-smi -L > $OUT/tuned/card.txt 2>&1; date -u >> $OUT/tuned/card.txt
timeout ${TUNED_TIMEOUT:-230} python3 validation/scripts/moe/probe_tuned.py $OUT/tuned/tuned.jsonl $TUNED_TOKENS > $OUT/tuned/log.txt 2>&1
echo "probe_tuned rc=$? $(wc -l < $OUT/tuned/tuned.jsonl) records"; tail -2 $OUT/tuned/log.txt | cut -c1-300
# Added 2026-12-07 (before any run; the prices and rule unchanged): Nsight Compute's occupancy limits of each config's
# kernel, against the CTAs an SM that fused_moe_cost.cpp's tuned_config derives (read_tuned.py --ncu).
if command -v ncu > /dev/null; then
  timeout ${TUNED_NCU_TIMEOUT:-90} ncu --clock-control none -k regex:_fused_moe_gemm \
    --metrics launch__grid_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks \
    python3 validation/scripts/moe/probe_tuned.py --once /dev/null ${TUNED_TOKENS:-1,16,64,256,2048} > $OUT/tuned/ncu.txt 2> $OUT/tuned/ncu.err
  echo "ncu rc=$? $(grep -c '_fused_moe_gemm_kernel (' $OUT/tuned/ncu.txt) kernels"
fi
date -u >> $OUT/tuned/card.txt
cd $OUT && tar czf t.tgz tuned && rm -rf tuned
