#!/bin/bash
# h200-hfgemma's third call (lead, 2026-12-04, tenth session): Gemma-2-9B and Llama-3-8B decode at the same points on
# one lease (hf_grid.py --plan hfgemma-paired), into paired/.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/paired; date -u > $OUT/paired/date.txt
timeout 220 python3 validation/scripts/production/hf_grid.py $OUT/paired --plan hfgemma-paired --budget 190 > $OUT/paired/stdout.txt 2>&1; echo "hf rc=$?"
date -u >> $OUT/paired/date.txt; grep -v "^\s" $OUT/paired/run.log | tail -8
