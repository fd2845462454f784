#!/bin/bash
# h200-flash2cal (lead, planned 2026-12-05, eighteenth session), from the repository root, OUT set, the static perfmodel
# of this commit or later carried as .dev-host/perfmodel (carry [".dev-host"]). The first on-GPU run of
# `calibrate --profile eager --only flash2,flash2_decode` since it measures FlashAttention-2's mechanism sets beside the
# default shapes (run_all.py --shapes oddsplit and --shapes lonecta: head dims short of their kernel's, CTAs alone on
# an SM), so that uneven_dim and lone_pace are this machine's. At most 8 files come back.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
export PERFMODEL_DATA_DIR=$PWD
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
cp hardware/h200.calibration.yaml $OUT/lease.calibration.yaml
timeout 560 .dev-host/perfmodel calibrate --on-gpu --profile eager --only flash2,flash2_decode --card h200 \
  --calibration $OUT/lease.calibration.yaml --kernels-out /tmp/k --format json > $OUT/calibrate.json 2> $OUT/calibrate.log
echo "calibrate rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/calibrate.log
cp /tmp/k/kernels.json $OUT/kernels.json 2>/dev/null
cp /tmp/k/oddsplit/kernels.json $OUT/oddsplit.json 2>/dev/null
cp /tmp/k/lonecta/kernels.json $OUT/lonecta.json 2>/dev/null
date -u >> $OUT/smi.txt
tail -5 $OUT/calibrate.log; diff hardware/h200.calibration.yaml $OUT/lease.calibration.yaml | cut -c1-160
