#!/bin/bash
# h200-normissue's device run (lead, 2026-12-04, tenth session), from the repository root, OUT set. Clocks as found.
# 1. norm_ncu.py under Nsight Compute at 4224, 1056 and 132 rows (ncu_<rows>.csv; logs in ncu.log);
# 2. normissue.py's held-out timing grid (run_all.py --shapes normissue --groups ops: kernels.json, run.log).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 200 python3 validation/scripts/production/run_all.py $OUT --shapes normissue --groups ops --budget 170 > /dev/null 2>&1; echo "run_all rc=$?"
grep -c measured_s $OUT/kernels.json; tail -1 $OUT/run.log | cut -c1-200
for rows in 4224 1056 132; do
timeout 100 $NCU --clock-control none --cache-control all --nvtx --nvtx-include "measure/" -k regex:layer_norm \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum,sm__inst_executed.avg.per_cycle_active,sm__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,launch__grid_size,launch__block_size,launch__registers_per_thread \
  --csv --page raw python3 validation/scripts/production/norm_ncu.py $rows > $OUT/ncu_$rows.csv 2>> $OUT/ncu.log; echo "ncu $rows rc=$?"
done
date -u >> $OUT/date.txt; wc -l $OUT/*.csv
