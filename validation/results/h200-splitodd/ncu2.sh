#!/bin/bash
# h200-splitodd's Nsight Compute call (lead, 2026-12-04, ninth session): Inductor's split partials (every
# triton_red kernel: softmax's max and sum of exps, layer_norm's Welford, rms_norm's sum of squares) at aligned,
# even and odd chunks. From the repository root, OUT set. Clocks as found.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
timeout ${NCU_BUDGET:-250} $NCU --clock-control none --cache-control all --nvtx --nvtx-include "measure/" -k regex:triton_red_fused \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,smsp__inst_executed.sum,smsp__inst_executed_op_global_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,sm__inst_executed.avg.per_cycle_active,sm__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread \
  --csv --page raw python3 validation/scripts/production/split_ncu.py softmax_fused,layernorm,rmsnorm > $OUT/ncu2.csv 2> $OUT/ncu2_run.log; echo "ncu rc=$?"
wc -l $OUT/ncu2.csv; tail -3 $OUT/ncu2_run.log | cut -c1-200
