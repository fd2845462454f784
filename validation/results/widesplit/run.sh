#!/bin/bash
# widesplit (planned 2026-12-06, twenty-sixth session), from the repository root, OUT set, on either lent card: the
# wide-group decode sets (h200-widegroup, h200-widecheck, h200-wideprobe's shapes) timed as every set is (run_all.py,
# CUDA-graph replay) and each call's kernels apart (validation/scripts/production/split_kernels.py, torch.profiler).
# About 3 min. The results go to validation/results/<card>-widesplit.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
for s in widegroup widecheck wideprobe; do
  mkdir -p $OUT/$s
  timeout 150 python3 validation/scripts/production/run_all.py $OUT/$s --shapes $s --groups attention \
    --budget 120 > /dev/null 2>&1
  echo "$s rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
  rm -f $OUT/$s/hf.json
  timeout 120 python3 validation/scripts/production/split_kernels.py $OUT/$s $s > $OUT/$s/profile.log 2>&1
  echo "$s profile rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
  grep -c '"ok": true' $OUT/$s/kernels.json
done
