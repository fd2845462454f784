#!/bin/bash
# bigncu (planned 2026-12-07, thirty-fourth session; issue 10): Nsight Compute on the long-prefill fused_moe GEMMs that
# h100-tunedbig priced worst (README.md). Exploratory, no rule. An H100, ~3 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/bigncu
nvidia-smi -L > $OUT/bigncu/card.txt 2>&1; date -u >> $OUT/bigncu/card.txt
timeout 400 ncu --clock-control none -k regex:_fused_moe_gemm \
  --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size \
  python3 validation/scripts/moe/probe_tuned.py --once --h100-files /dev/null 4096,16384 qwen3-30b-a3b,mixtral-8x7b \
  > $OUT/bigncu/ncu.txt 2> $OUT/bigncu/ncu.err
echo "ncu rc=$? $(grep -c '_fused_moe_gemm_kernel (' $OUT/bigncu/ncu.txt) kernels"
date -u >> $OUT/bigncu/card.txt
cd $OUT && tar czf g.tgz bigncu && rm -rf bigncu
