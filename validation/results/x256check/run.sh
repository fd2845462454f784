#!/bin/bash
# x256check (planned 2026-12-06, twenty-sixth session), from the repository root, OUT set, on either lent card: cuDNN
# decode at head dims 144-256 and split calls of 64-1056 query rows (validation/scripts/production/x256check.py), timed
# (run_all.py, CUDA-graph replay) and each call's kernels apart (split_kernels.py, torch.profiler). About 1 min. The
# results go to validation/results/<card>-x256check.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
timeout 150 python3 validation/scripts/production/run_all.py $OUT/x256check --shapes x256check --groups attention \
  --budget 120 > /dev/null 2>&1
echo "x256check rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
rm -f $OUT/x256check/hf.json
timeout 120 python3 validation/scripts/production/split_kernels.py $OUT/x256check x256check > $OUT/profile.log 2>&1
echo "profile rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
grep -c '"ok": true' $OUT/x256check/kernels.json
