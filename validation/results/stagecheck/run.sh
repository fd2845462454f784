#!/bin/bash
# stagecheck (planned 2026-12-07, thirty-seventh session; issue 10): stagesweep's eight configs on models it did not run
# (probe_stages.py --check: Mixtral-8x7B and Qwen3-235B-A22B at 2048 and 8192 tokens), the held-out test of the full-line
# tile-load terms fused_moe_cost.cpp took from stagesweep; prices committed before the run. H100, ~3 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/stagecheck
nvidia-smi -L > $OUT/stagecheck/card.txt 2>&1; date -u >> $OUT/stagecheck/card.txt
timeout 420 python3 validation/scripts/moe/probe_stages.py --check $OUT/stagecheck/stages.jsonl > $OUT/stagecheck/log.txt 2>&1
echo "probe_stages rc=$? $(wc -l < $OUT/stagecheck/stages.jsonl) records"; tail -1 $OUT/stagecheck/log.txt | cut -c1-200
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/stagecheck/card.txt; date -u >> $OUT/stagecheck/card.txt
cd $OUT && tar czf c.tgz stagecheck && rm -rf stagecheck
