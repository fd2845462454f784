#!/bin/bash
# One FlashAttention-2 split-decode set with its kernels apart (lonesplit, splitgap, combinel2, combinewave, combinedim), from the repository
# root, OUT set: each call timed as every set does (run_all.py --shapes SET: CUDA-graph replay) and each kernel's mean
# device time from torch.profiler (split_kernels.py OUT/SET SET: kernel_split.json). About 1 min.
#   OUT=... bash validation/scripts/production/run_split_set.sh SET
set -u
s=$1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
timeout 150 python3 validation/scripts/production/run_all.py $OUT/$s --shapes $s --groups attention \
  --budget 120 > /dev/null 2>&1
echo "$s rc=$? at $(( $(date +%s) - t0 )) s" | tee $OUT/log.txt
rm -f $OUT/$s/hf.json
timeout 120 python3 validation/scripts/production/split_kernels.py $OUT/$s $s > $OUT/profile.log 2>&1
echo "profile rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
grep -c '"ok": true' $OUT/$s/kernels.json
