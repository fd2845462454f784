#!/bin/bash
# heldout35 (lead, planned 2026-12-05, twenty-second session), from the repository root, OUT set, on either lent card:
# FlashAttention-2 non-split decode grids no set holds (validation/scripts/production/heldout35.py), the check of
# the non-split stream over waves (commit 4890058). About 1 min. The results go to validation/results/<card>-heldout35.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
timeout 200 python3 validation/scripts/production/run_all.py $OUT/heldout35 --shapes heldout35 --groups attention \
  --budget 170 > /dev/null 2>&1
echo "heldout35 rc=$? at $(( $(date +%s) - t0 )) s" | tee $OUT/log.txt
rm -f $OUT/heldout35/hf.json
grep -c '"ok": true' $OUT/heldout35/kernels.json
