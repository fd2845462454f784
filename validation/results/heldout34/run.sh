#!/bin/bash
# heldout34 (lead, planned 2026-12-05, twenty-first session), from the repository root, OUT set, on either lent card:
# FlashAttention-2 decode grids no set holds (validation/scripts/production/heldout34.py), the check of
# the lone split CTAs and the non-split stream (commits 6d4de43, d1f83b4). About 1 min. The results go to validation/results/<card>-heldout34.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
timeout 200 python3 validation/scripts/production/run_all.py $OUT/heldout34 --shapes heldout34 --groups attention \
  --budget 170 > /dev/null 2>&1
echo "heldout34 rc=$? at $(( $(date +%s) - t0 )) s" | tee $OUT/log.txt
rm -f $OUT/heldout34/hf.json
grep -c '"ok": true' $OUT/heldout34/kernels.json
