#!/bin/bash
# driftncu (planned 2026-12-07, thirty-fourth session; issue 11): vLLM's default 64 x 64 x 32 fused_moe GEMMs with
# every expert's blocks full, 4-64 blocks an expert (fixed routing, probe_twoblock.py), timed and under Nsight
# Compute: how the weight re-reads grow with the blocks and the K loop (README.md). Exploratory. ~3 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
export PROBE_PICKS='{"mixtral-8x7b": [256, 512, 1024, 2048, 4096], "mixtral-8x22b": [512, 2048]}'
mkdir -p $OUT/driftncu
nvidia-smi -L > $OUT/driftncu/card.txt 2>&1; date -u >> $OUT/driftncu/card.txt
timeout 150 python3 validation/scripts/moe/probe_twoblock.py time $OUT/driftncu/time.jsonl > $OUT/driftncu/time.log 2>&1
echo "time rc=$? $(wc -l < $OUT/driftncu/time.jsonl) cases"
timeout 240 ncu --clock-control none -k regex:_fused_moe_gemm \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed \
  python3 validation/scripts/moe/probe_twoblock.py ncu > $OUT/driftncu/ncu.txt 2> $OUT/driftncu/ncu.err
echo "ncu rc=$? $(grep -c '^case' $OUT/driftncu/ncu.txt) cases"
date -u >> $OUT/driftncu/card.txt
cd $OUT && tar czf f.tgz driftncu && rm -rf driftncu
