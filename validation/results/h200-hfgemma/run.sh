#!/bin/bash
# h200-hfgemma's device run (lead, 2026-12-04, tenth session), from the repository root, OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 200 python3 validation/scripts/production/hf_grid.py $OUT --plan hfgemma --budget 170 > $OUT/stdout.txt 2>&1; echo "hf rc=$?"
date -u >> $OUT/date.txt; tail -8 $OUT/run.log
