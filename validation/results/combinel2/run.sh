#!/bin/bash
# combinel2 (planned 2026-12-06, twenty-fifth session), from the repository root, OUT set, on either lent card:
# FlashAttention-2's split-decode combine at fixed splits and rows, the K / V stepped past L2, each call timed as every set does and each kernel's
# device time from torch.profiler (validation/scripts/production/combinel2.py). About 1 min. The results go to
# validation/results/<card>-combinel2.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
timeout 150 python3 validation/scripts/production/run_all.py $OUT/combinel2 --shapes combinel2 --groups attention \
  --budget 120 > /dev/null 2>&1
echo "combinel2 rc=$? at $(( $(date +%s) - t0 )) s" | tee $OUT/log.txt
rm -f $OUT/combinel2/hf.json
timeout 120 python3 validation/scripts/production/combinel2.py $OUT/combinel2 > $OUT/profile.log 2>&1
echo "profile rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
grep -c '"ok": true' $OUT/combinel2/kernels.json
