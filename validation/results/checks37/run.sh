#!/bin/bash
# checks37 (planned 2026-12-06, thirty-first session; issue 10): two held-out sets that ran on an H100 only, run
# unchanged on an H200 in one call (~7 min): heldout35 (FlashAttention-2 non-split decode over waves) and x256check
# (cuDNN decode at head dims 144-256 and the merge's rows). Their shapes and prices were committed in the twenty-second
# and twenty-sixth sessions (validation/results/heldout35, x256check); nothing is fitted on either.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
nvidia-smi -L
timeout 200 python3 validation/scripts/production/run_all.py $OUT/heldout35 --shapes heldout35 --groups attention \
  --budget 170 > /dev/null 2>&1
echo "heldout35 rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
rm -f $OUT/heldout35/hf.json
grep -c '"ok": true' $OUT/heldout35/kernels.json
timeout 150 python3 validation/scripts/production/run_all.py $OUT/x256check --shapes x256check --groups attention \
  --budget 120 > /dev/null 2>&1
echo "x256check rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
rm -f $OUT/x256check/hf.json
timeout 120 python3 validation/scripts/production/split_kernels.py $OUT/x256check x256check > $OUT/profile.log 2>&1
echo "profile rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
grep -c '"ok": true' $OUT/x256check/kernels.json
{ date -u; nvidia-smi; } >> $OUT/smi.txt 2>&1
cd $OUT && tar czf r.tgz * && find . -mindepth 1 -maxdepth 1 ! -name r.tgz -exec rm -rf {} +
