#!/bin/bash
# tunedcheck (planned 2026-12-07, thirty-fourth session; issue 10): vLLM's two tuned H200 fused_moe files' tiles on
# three models they were not tuned for (probe_tuned.py CHECK_MODELS), kernel times as h100-tunedmoe's second run took
# them; prices committed before the run (README.md). Either card, ~2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/tunedcheck
nvidia-smi -L > $OUT/tunedcheck/card.txt 2>&1; date -u >> $OUT/tunedcheck/card.txt
timeout ${CHECK_TIMEOUT:-240} python3 validation/scripts/moe/probe_tuned.py $OUT/tunedcheck/tuned.jsonl "" \
  mixtral-8x22b,qwen3-235b-a22b,deepseek-v2-lite > $OUT/tunedcheck/log.txt 2>&1
echo "probe_tuned rc=$? $(wc -l < $OUT/tunedcheck/tuned.jsonl) records"; tail -1 $OUT/tunedcheck/log.txt | cut -c1-200
if command -v ncu > /dev/null; then
  timeout ${CHECK_NCU_TIMEOUT:-90} ncu --clock-control none -k regex:_fused_moe_gemm \
    --metrics launch__grid_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks \
    python3 validation/scripts/moe/probe_tuned.py --once /dev/null 2,4,8,32,128,512 qwen3-235b-a22b \
    > $OUT/tunedcheck/ncu.txt 2> $OUT/tunedcheck/ncu.err
  echo "ncu rc=$? $(grep -c '_fused_moe_gemm_kernel (' $OUT/tunedcheck/ncu.txt) kernels"
fi
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/tunedcheck/card.txt; date -u >> $OUT/tunedcheck/card.txt
cd $OUT && tar czf c.tgz tunedcheck && rm -rf tunedcheck
