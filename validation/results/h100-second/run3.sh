#!/bin/bash
# h100-second's third call (same lease, planned before any result was read): FlashAttention-2 / cuDNN attention sets
# on the H100 (h200-flash30, h200-headdims, h200-x256, h200-tailprobe, h200-heldout31's kernels). OUT set, ~4 min.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
for s in flash30 headdims x256 tailprobe heldout31; do
  left=$(( 250 - ($(date +%s) - t0) )); [ $left -lt 30 ] && break
  g=attention; [ $s = heldout31 ] && g=attention,gemm,ops
  timeout $(( left + 10 )) python3 validation/scripts/production/run_all.py $OUT/$s --shapes $s --groups $g --budget $(( left < 90 ? left : 90 )) \
    > /dev/null 2>&1
  echo "$s rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt; rm -f $OUT/$s/hf.json $OUT/$s/run.log
done
