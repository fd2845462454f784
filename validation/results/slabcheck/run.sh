#!/bin/bash
# slabcheck (planned 2026-12-07, thirty-fifth session; issue 10): vLLM's fused_moe at long prefills on shapes no set
# holds, to hold out the K-loop slab's fix (commit 0b361e3: a CTA counts its own output tile). Part 1: vLLM's own H100
# files (Qwen3-30B-A3B, Mixtral-8x7B, DeepSeek-V2-Lite) at 6144, 12288 and 24576 tokens; part 2: the H200 files'
# tiles on Mixtral-8x22B, Qwen3-235B-A22B and DeepSeek-V2-Lite (probe_tuned.CHECK_MODELS) at 4096, 8192 and 16384.
# Each under its file and vLLM's default config, CUPTI kernel times over 4 weight copies. Prices committed before the
# run (README.md). An H100 or an H200, ~5 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/slabcheck
nvidia-smi -L > $OUT/slabcheck/card.txt 2>&1; date -u >> $OUT/slabcheck/card.txt
timeout 280 python3 validation/scripts/moe/probe_tuned.py --h100-files $OUT/slabcheck/part1.jsonl 6144,12288,24576 \
  qwen3-30b-a3b,mixtral-8x7b,deepseek-v2-lite > $OUT/slabcheck/log1.txt 2>&1
echo "part1 rc=$? $(wc -l < $OUT/slabcheck/part1.jsonl) records"; tail -1 $OUT/slabcheck/log1.txt | cut -c1-200
timeout 250 python3 validation/scripts/moe/probe_tuned.py $OUT/slabcheck/part2.jsonl 4096,8192,16384 \
  mixtral-8x22b,qwen3-235b-a22b,deepseek-v2-lite > $OUT/slabcheck/log2.txt 2>&1
echo "part2 rc=$? $(wc -l < $OUT/slabcheck/part2.jsonl) records"; tail -1 $OUT/slabcheck/log2.txt | cut -c1-200
cat $OUT/slabcheck/part1.jsonl $OUT/slabcheck/part2.jsonl > $OUT/slabcheck/tuned.jsonl
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/slabcheck/card.txt; date -u >> $OUT/slabcheck/card.txt
cd $OUT && tar czf s.tgz slabcheck && rm -rf slabcheck
