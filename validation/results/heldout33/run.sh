#!/bin/bash
# heldout33 (lead, planned 2026-12-05, twenty-first session), from the repository root, OUT set, on either lent card:
# split FlashAttention-2 / cuDNN decode grids no set holds (validation/scripts/production/heldout33.py), the check of
# the split wave's CTA pace (commit d81efd4). About 2 min. The results go to validation/results/<card>-heldout33.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
timeout 200 python3 validation/scripts/production/run_all.py $OUT/heldout33 --shapes heldout33 --groups attention \
  --budget 170 > /dev/null 2>&1
echo "heldout33 rc=$? at $(( $(date +%s) - t0 )) s" | tee $OUT/log.txt
rm -f $OUT/heldout33/hf.json
grep -c '"ok": true' $OUT/heldout33/kernels.json
