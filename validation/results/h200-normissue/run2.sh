#!/bin/bash
# h200-normissue's second call (lead, 2026-12-04, tenth session): norm_ncu.py under Nsight Compute at 33792 rows (256
# an SM), where the issue-bound layer_norm runs many waves: the SM's steady issue rate, against 4224 rows' two waves.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
date -u > $OUT/date2.txt
timeout 200 $NCU --clock-control none --cache-control all --nvtx --nvtx-include "measure/" -k regex:layer_norm \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum,sm__inst_executed.avg.per_cycle_active,sm__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,launch__grid_size,launch__block_size,launch__registers_per_thread \
  --csv --page raw python3 validation/scripts/production/norm_ncu.py 33792 > $OUT/ncu_33792.csv 2> $OUT/ncu2.log; echo "ncu 33792 rc=$?"
date -u >> $OUT/date2.txt; wc -l $OUT/ncu_33792.csv
