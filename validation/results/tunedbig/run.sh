#!/bin/bash
# tunedbig (planned 2026-12-07, thirty-fourth session; issue 10): vLLM's own H100 fused_moe files at long prefills
# (4096-16384 tokens), where the tuned tiles load full lines and fused_moe_cost.cpp prices them without the L2 tile
# walk; prices committed before the run (README.md). An H100, ~2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/tunedbig
nvidia-smi -L > $OUT/tunedbig/card.txt 2>&1; date -u >> $OUT/tunedbig/card.txt
timeout 300 python3 validation/scripts/moe/probe_tuned.py --h100-files $OUT/tunedbig/tuned.jsonl 4096,8192,16384 \
  qwen3-30b-a3b,mixtral-8x7b,deepseek-v2-lite > $OUT/tunedbig/log.txt 2>&1
echo "probe_tuned rc=$? $(wc -l < $OUT/tunedbig/tuned.jsonl) records"; tail -1 $OUT/tunedbig/log.txt | cut -c1-200
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/tunedbig/card.txt; date -u >> $OUT/tunedbig/card.txt
cd $OUT && tar czf b.tgz tunedbig && rm -rf tunedbig
