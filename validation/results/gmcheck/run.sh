#!/bin/bash
# gmcheck (planned 2026-12-07, thirty-seventh session; issue 10): GROUP_SIZE_M 1-32 under one full-line tile (probe_stages.py
# --gm: 128 x 256 x 64 s4; Mixtral-8x7B, Mixtral-8x22B, Qwen3-235B-A22B at 4096 tokens), the held-out test of the straddle
# re-reads the price took on at full lines after stagecheck; prices with and without them committed before the run. H100.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/gmcheck
nvidia-smi -L > $OUT/gmcheck/card.txt 2>&1; date -u >> $OUT/gmcheck/card.txt
timeout 420 python3 validation/scripts/moe/probe_stages.py --gm $OUT/gmcheck/stages.jsonl > $OUT/gmcheck/log.txt 2>&1
echo "probe_stages rc=$? $(wc -l < $OUT/gmcheck/stages.jsonl) records"; tail -1 $OUT/gmcheck/log.txt | cut -c1-200
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/gmcheck/card.txt; date -u >> $OUT/gmcheck/card.txt
cd $OUT && tar czf g.tgz gmcheck && rm -rf gmcheck
