#!/bin/bash
# decodencu (planned 2026-12-07, thirty-fourth session; issue 11): Nsight Compute on fused_moe's 64 x 64 x 32 grouped
# GEMMs at decode past the experts (one row block an expert), where the H100's prices lean by model: Qwen3-30B-A3B
# +9-10 % slow in four sets, Mixtral-8x22B 2-8 % fast (README.md). One launch a kernel (probe_tuned.py --once), the
# default and the tuned configs. Either card, ~2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/decodencu
nvidia-smi -L > $OUT/decodencu/card.txt 2>&1; date -u >> $OUT/decodencu/card.txt
timeout 300 ncu --clock-control none -k regex:_fused_moe_gemm \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,sm__cycles_elapsed.avg.per_second \
  python3 validation/scripts/moe/probe_tuned.py --once /dev/null 64,176 qwen3-30b-a3b,mixtral-8x22b,deepseek-v2-lite,qwen3-235b-a22b \
  > $OUT/decodencu/ncu.txt 2> $OUT/decodencu/ncu.err
echo "ncu rc=$? $(grep -c '_fused_moe_gemm_kernel (' $OUT/decodencu/ncu.txt) kernels"
date -u >> $OUT/decodencu/card.txt
cd $OUT && tar czf d.tgz decodencu && rm -rf decodencu
