#!/bin/bash
# lonesplit (lead, planned 2026-12-05, twenty-third session), from the repository root, OUT set, on either lent card:
# FlashAttention-2's split-KV decode on grids alone on their SMs, each call timed as every set does and each kernel's
# device time from torch.profiler (validation/scripts/production/lonesplit.py). About 1 min. The results go to
# validation/results/<card>-lonesplit.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
timeout 150 python3 validation/scripts/production/run_all.py $OUT/lonesplit --shapes lonesplit --groups attention \
  --budget 120 > /dev/null 2>&1
echo "lonesplit rc=$? at $(( $(date +%s) - t0 )) s" | tee $OUT/log.txt
rm -f $OUT/lonesplit/hf.json
timeout 90 python3 validation/scripts/production/lonesplit.py $OUT/lonesplit > $OUT/profile.log 2>&1
echo "profile rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
grep -c '"ok": true' $OUT/lonesplit/kernels.json
