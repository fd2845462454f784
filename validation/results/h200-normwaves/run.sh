#!/bin/bash
# h200-normwaves' device run (lead, 2026-12-04, eighth session), from the repository root, OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1
timeout 150 python3 validation/scripts/production/run_all.py $OUT --shapes normwaves --groups ops --budget 120 > /dev/null 2>&1; echo "run_all rc=$?"
grep -c measured_s $OUT/kernels.json; tail -2 $OUT/run.log | cut -c1-200
