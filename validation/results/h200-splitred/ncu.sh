#!/bin/bash
# branch splitred's Nsight Compute call (lead, 2026-12-04): the split rms_norm partial at aligned, even and odd chunks.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
which ncu > $OUT/ncu_which.txt 2>&1 || ls /usr/local/cuda/bin/ncu* >> $OUT/ncu_which.txt 2>&1
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
timeout 280 $NCU --clock-control none --cache-control all --nvtx --nvtx-include "measure/" -k regex:triton_red_fused__fused_rms_norm_0 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed_op_global_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__registers_per_thread \
  --csv --page raw python3 validation/scripts/production/split_ncu.py > $OUT/ncu.csv 2> $OUT/ncu_run.log; echo "ncu rc=$?"
wc -l $OUT/ncu.csv; tail -3 $OUT/ncu_run.log | cut -c1-200
