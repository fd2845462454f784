#!/bin/bash
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1
date -u > $OUT/date.txt
timeout 200 python3 validation/scripts/production/cudnn_occupancy.py $OUT --sweep split --budget 120 > $OUT/run.log 2>&1; echo "split rc=$?"
date -u >> $OUT/date.txt; tail -2 $OUT/run.log
