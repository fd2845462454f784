#!/bin/bash
# h200-afterfit28's device run (lead, 2026-12-04, ninth session), from the repository root, OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1
timeout 280 python3 validation/scripts/production/run_all.py $OUT --shapes afterfit28 --groups ops --budget 250 > /dev/null 2>&1; echo "run_all rc=$?"
date -u > $OUT/date.txt; tail -4 $OUT/run.log
