#!/bin/bash
# h200-softmaxocc (lead, 2026-12-04, ninth session): eager torch.softmax's block kernels under Nsight Compute at 2048
# and 132 rows, 2304-12288 columns. From the repository root, OUT set. Clocks as found.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
for rows in 2048 132; do
timeout 140 $NCU --clock-control none --cache-control all --nvtx --nvtx-include "measure/" -k regex:SoftMax \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,smsp__inst_executed.sum,sm__inst_executed.avg.per_cycle_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic \
  --csv --page raw python3 validation/scripts/production/softmax_ncu.py $rows > $OUT/ncu_$rows.csv 2> $OUT/ncu_$rows.log; echo "ncu $rows rc=$?"
done
date -u >> $OUT/date.txt; wc -l $OUT/*.csv
