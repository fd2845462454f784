#!/bin/bash
# branch splitred's second device run: GRID2, then the first grid again (with the kept configs), OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi2.txt 2>&1
date -u > $OUT/date2.txt
timeout 330 python3 validation/scripts/production/split_probe.py $OUT 280 grid2 > $OUT/run2.log 2>&1; echo "grid2 rc=$?"
timeout 200 python3 validation/scripts/production/split_probe.py $OUT 150 repeat > $OUT/run_repeat.log 2>&1; echo "repeat rc=$?"
date -u >> $OUT/date2.txt; grep -c '"kernels"' $OUT/*.jsonl; grep -v Warn $OUT/run2.log | cut -c1-250 | tail -5
