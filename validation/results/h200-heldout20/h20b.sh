#!/bin/bash
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
(uptime; nproc; ps -eo pcpu,comm --sort=-pcpu | head -8) > $OUT/host.txt
timeout 200 python3 validation/scripts/production/hf_grid.py $OUT/hf2 --plan heldout20 --models qwen2.5-32b,mistral-nemo-12b --budget 170 > /dev/null 2>&1; echo "hf rc=$?"
(uptime; ps -eo pcpu,comm --sort=-pcpu | head -8) >> $OUT/host.txt
grep -h "decode\|prefill" $OUT/hf2/run.log | tail -12; rm -f $OUT/hf2/run.log
