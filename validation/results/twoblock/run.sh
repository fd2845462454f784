#!/bin/bash
# twoblock's device run (planned 2026-12-06, thirtieth session), from the repository root, OUT set, on either lent card:
# validation/scripts/moe/probe_twoblock.py, the lag of an expert's partner CTAs in vLLM-style fused_moe at two row
# blocks an expert (hypothesis and its signature in the script's docstring). CUDA-event times of each GEMM with routing
# fixed to c picks an expert, vLLM's FRONT layout against an EVEN one, then Nsight Compute's DRAM bytes at a subset.
# A diagnosis: nothing is priced or fitted on it. About 3 min.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi -L; nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 120 python3 validation/scripts/moe/probe_twoblock.py time $OUT/time.jsonl > $OUT/time.log 2>&1
echo "time rc=$? $(wc -l < $OUT/time.jsonl) cases"; tail -2 $OUT/time.log | cut -c1-300
timeout 200 ncu --clock-control none -k regex:_fused_moe_gemm \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,sm__cycles_elapsed.avg.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
  python3 validation/scripts/moe/probe_twoblock.py ncu > $OUT/ncu.txt 2> $OUT/ncu.err
echo "ncu rc=$? $(grep -c '^case' $OUT/ncu.txt) cases"; tail -2 $OUT/ncu.err
nvidia-smi >> $OUT/smi.txt 2>&1; date -u >> $OUT/date.txt
cd $OUT && tar czf r.tgz * && find . -mindepth 1 -maxdepth 1 ! -name r.tgz -exec rm -rf {} +
