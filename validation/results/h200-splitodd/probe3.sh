#!/bin/bash
# h200-splitodd's second call (lead, 2026-12-04, ninth session), from the repository root, OUT set: split_probe.py's
# SHAPES3 (which chunk lengths Triton loads slowly: ragged or not, L a multiple of 16, of 8 only, even, odd) timed
# kernel by kernel, then the same shapes' partials under Nsight Compute. Clocks as found.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi3.txt 2>&1
date -u > $OUT/date3.txt
timeout 200 python3 validation/scripts/production/split_probe.py $OUT 170 grid3 > $OUT/run3.log 2>&1; echo "grid3 rc=$?"
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
timeout 220 $NCU --clock-control none --cache-control all --nvtx --nvtx-include "measure/" -k regex:triton_red_fused \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,smsp__inst_executed.sum,smsp__inst_executed_op_global_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,sm__inst_executed.avg.per_cycle_active,sm__cycles_active.avg,launch__grid_size,launch__block_size,launch__registers_per_thread \
  --csv --page raw python3 validation/scripts/production/split_ncu.py softmax_fused,layernorm,rmsnorm grid3 > $OUT/ncu3.csv 2> $OUT/ncu3_run.log; echo "ncu rc=$?"
date -u >> $OUT/date3.txt; grep -c '"kernels"' $OUT/split_probe3.jsonl; wc -l $OUT/ncu3.csv; grep -v Warn $OUT/run3.log | cut -c1-250 | tail -4
