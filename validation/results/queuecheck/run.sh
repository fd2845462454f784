#!/bin/bash
# queuecheck (planned 2026-12-07, thirty-eighth session; issue 10): the full-line stage loads as a closed queue
# (rate x n / (n + 1)) and GROUP_SIZE_M's straddle all-or-none, held out on eight tiles no stage set ran (n 1-6),
# DeepSeek-V2-Lite and Mixtral-8x7B at 2048 / 8192 tokens (probe_stages.py --queue); prices of both cards, before and
# after this session's changes, committed before the run. H200 or H100, ~2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/queuecheck
nvidia-smi -L > $OUT/queuecheck/card.txt 2>&1; date -u >> $OUT/queuecheck/card.txt
timeout 330 python3 validation/scripts/moe/probe_stages.py --queue $OUT/queuecheck/stages.jsonl > $OUT/queuecheck/log.txt 2>&1
echo "probe_stages rc=$? $(wc -l < $OUT/queuecheck/stages.jsonl) records"; tail -1 $OUT/queuecheck/log.txt | cut -c1-200
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/queuecheck/card.txt; date -u >> $OUT/queuecheck/card.txt
cd $OUT && tar czf q.tgz queuecheck && rm -rf queuecheck
