#!/bin/bash
# h200-hfgemma's fifth call (lead, 2026-12-04, tenth session): Mistral-7B-v0.1 (every layer windowed at 4096) past and below its window on
# one lease (hf_grid.py --plan hfgemma-mistral), into mistral/.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/mistral; date -u > $OUT/mistral/date.txt
timeout 220 python3 validation/scripts/production/hf_grid.py $OUT/mistral --plan hfgemma-mistral --budget 190 > $OUT/mistral/stdout.txt 2>&1; echo "hf rc=$?"
date -u >> $OUT/mistral/date.txt; grep -v "^\s" $OUT/mistral/run.log | tail -8
