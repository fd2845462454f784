#!/bin/bash
# tailplace (lead, planned 2026-12-05, twenty-second session), from the repository root, OUT set, on either lent card, no
# carried binary (~1 min): where the block scheduler puts a last round of two-CTA-an-SM blocks and how long its CTAs
# run (validation/scripts/production/tailplace.cu), beside h200-tailprobe's FlashAttention-2 calls on the same lease.
# The results go to validation/results/<card>-tailplace.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
nvcc -O3 -arch=sm_90 -o /tmp/tailplace validation/scripts/production/tailplace.cu > $OUT/log.txt 2>&1
echo "nvcc rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
timeout 200 /tmp/tailplace > $OUT/ctas.csv 2>> $OUT/log.txt
echo "tailplace rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
timeout 150 python3 validation/scripts/production/run_all.py $OUT/tailprobe --shapes tailprobe --groups attention \
  --budget 120 > /dev/null 2>&1
echo "tailprobe rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
rm -f $OUT/tailprobe/hf.json
date -u >> $OUT/smi.txt
python3 validation/scripts/production/tailplace_summary.py $OUT/ctas.csv | tee -a $OUT/log.txt
