#!/bin/bash
# stagecheck2 (planned 2026-12-07, thirty-seventh session; issue 10): the full-line terms' three choices made after seeing their
# data, held out together (probe_stages.py --check2: Mixtral-8x22B and Qwen3-235B-A22B at 1024 and 4096 tokens, the eight
# configs); prices of both cards, with and without the terms, committed before the run. H200 or H100, ~1 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/stagecheck2
nvidia-smi -L > $OUT/stagecheck2/card.txt 2>&1; date -u >> $OUT/stagecheck2/card.txt
timeout 420 python3 validation/scripts/moe/probe_stages.py --check2 $OUT/stagecheck2/stages.jsonl > $OUT/stagecheck2/log.txt 2>&1
echo "probe_stages rc=$? $(wc -l < $OUT/stagecheck2/stages.jsonl) records"; tail -1 $OUT/stagecheck2/log.txt | cut -c1-200
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/stagecheck2/card.txt; date -u >> $OUT/stagecheck2/card.txt
cd $OUT && tar czf k.tgz stagecheck2 && rm -rf stagecheck2
