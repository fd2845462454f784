#!/bin/bash
# tunedncu (planned 2026-12-07, thirty-sixth session; issue 10): Nsight Compute on vLLM's H100-tuned fused_moe tiles at
# 16384-token prefills (Qwen3-30B-A3B, DeepSeek-V2-Lite, Mixtral-8x7B; the default config beside each), the kernels
# h100-tunedbig timed. Exploratory: why the 128 x 256 x 64 tile's short-K w2 runs 43-49 % of the MMA peak where its
# w13 runs 61 % (README.md). One launch a kernel, ~3 min on an H100; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/tunedncu
nvidia-smi -L > $OUT/tunedncu/card.txt 2>&1; date -u >> $OUT/tunedncu/card.txt
timeout 420 ncu --clock-control none -k regex:_fused_moe_gemm \
  --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section Occupancy --section LaunchStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second,lts__t_bytes.sum \
  python3 validation/scripts/moe/probe_tuned.py --once --h100-files /dev/null 16384 \
  qwen3-30b-a3b,deepseek-v2-lite,mixtral-8x7b > $OUT/tunedncu/ncu.txt 2> $OUT/tunedncu/ncu.err
echo "ncu rc=$? $(grep -c '_fused_moe_gemm' $OUT/tunedncu/ncu.txt) kernel headers"
date -u >> $OUT/tunedncu/card.txt
cd $OUT && tar czf t.tgz tunedncu && rm -rf tunedncu
