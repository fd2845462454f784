#!/bin/bash
# h200-tailprobe's device run (lead, 2026-12-04, twelfth session), from the repository root, OUT set: FlashAttention-2's decode without a split
# across CTA counts (validation/scripts/production/tailprobe.py), planned before it was measured.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 150 python3 validation/scripts/production/run_all.py $OUT --shapes tailprobe --groups attention --budget 130 > /dev/null 2>&1; echo "run_all rc=$?"
rm -f $OUT/hf.json
date -u >> $OUT/date.txt; tail -2 $OUT/run.log | cut -c1-250
