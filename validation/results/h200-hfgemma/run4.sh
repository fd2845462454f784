#!/bin/bash
# h200-hfgemma's fourth call (lead, 2026-12-04, tenth session): Gemma-2-9B past its 4096-token window (ctx 6000) and Llama-3-8B at the same points on
# one lease (hf_grid.py --plan hfgemma-window), into window/.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/window; date -u > $OUT/window/date.txt
timeout 220 python3 validation/scripts/production/hf_grid.py $OUT/window --plan hfgemma-window --budget 190 > $OUT/window/stdout.txt 2>&1; echo "hf rc=$?"
date -u >> $OUT/window/date.txt; grep -v "^\s" $OUT/window/run.log | tail -8
