#!/bin/bash
# h200-normwaves' second call (lead, 2026-12-04, eighth session): the first call's shapes again on another lease
# (second/kernels.json), then normwaves2.py's 1-4400 rows (second/kernels_rows.json). From the repository root, OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi2.txt 2>&1
timeout 100 python3 validation/scripts/production/run_all.py $OUT/a --shapes normwaves --groups ops --budget 80 > /dev/null 2>&1; echo "repeat rc=$?"
timeout 120 python3 validation/scripts/production/run_all.py $OUT/b --shapes normwaves2 --groups ops --budget 100 > /dev/null 2>&1; echo "rows rc=$?"
grep -c measured_s $OUT/a/kernels.json $OUT/b/kernels.json; tail -1 $OUT/b/run.log | cut -c1-200
