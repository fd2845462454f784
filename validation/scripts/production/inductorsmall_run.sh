#!/bin/bash
# inductorsmall's one device call: timed run, then Nsight Compute counts (one launch a shape).
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
OUT=$1
timeout 70 python3 .dev-inductorsmall/inductorsmall.py $OUT --budget 55 > $OUT/run_stdout.log 2>&1
echo "timed rc $?" >> $OUT/run_stdout.log
timeout 65 ncu --clock-control none --cache-control all -k regex:triton_red_fused \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,smsp__inst_executed.sum,launch__registers_per_thread,launch__occupancy_limit_registers \
  --csv --page raw python3 .dev-inductorsmall/inductorsmall.py $OUT --ncu > $OUT/ncu.csv 2>&1
echo "ncu rc $?" >> $OUT/run_stdout.log
