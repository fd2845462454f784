#!/bin/bash
# h200-headdims' device run (lead, 2026-12-04, eleventh session), from the repository root, OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 200 python3 validation/scripts/production/run_all.py $OUT --shapes headdims --groups attention --budget 180 > /dev/null 2>&1; echo "run_all rc=$?"
rm -f $OUT/hf.json
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
timeout 150 $NCU --clock-control none --nvtx --nvtx-include "measure/" -k regex:flash_fwd \
  --metrics launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic \
  --csv --page raw python3 validation/scripts/production/flash2_ncu.py --head-dims > $OUT/ncu.csv 2> $OUT/ncu.log; echo "ncu rc=$?"
date -u >> $OUT/date.txt; tail -2 $OUT/run.log | cut -c1-250
