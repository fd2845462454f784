#!/bin/bash
# branch splitred's device run (lead, 2026-12-03, eighth session), from the repository root, OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1
date -u > $OUT/date.txt
timeout 560 python3 validation/scripts/production/split_probe.py $OUT 420 > $OUT/run.log 2>&1; echo "probe rc=$?"
date -u >> $OUT/date.txt; cut -c1-220 $OUT/run.log | tail -70
