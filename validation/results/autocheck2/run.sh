#!/bin/bash
# autocheck2 (planned 2026-12-07, thirty-eighth session; issue 10): three more layouts `--moe-config auto` prices at
# vLLM's shipped files, never measured (Mixtral-8x7B and Mixtral-8x22B at TP 8, Qwen3-235B-A22B at TP 2; files for both
# cards), each under vLLM's file for the GPU in hand and under the default config, 1-16384 tokens. Prices for both
# cards, from this session's fused_moe forms (the load queue, the straddle all-or-none), committed before the run.
# H100 or H200, ~2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/autocheck2
nvidia-smi -L > $OUT/autocheck2/card.txt 2>&1; date -u >> $OUT/autocheck2/card.txt
timeout 400 python3 validation/scripts/moe/probe_tuned.py --auto-files $OUT/autocheck2/tuned.jsonl 1,16,128,1024,4096,16384 \
  mixtral-8x7b-tp8,mixtral-8x22b-tp8,qwen3-235b-a22b-tp2 > $OUT/autocheck2/log.txt 2>&1
echo "probe_tuned rc=$? $(wc -l < $OUT/autocheck2/tuned.jsonl) records"; tail -1 $OUT/autocheck2/log.txt | cut -c1-200
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/autocheck2/card.txt; date -u >> $OUT/autocheck2/card.txt
cd $OUT && tar czf a2.tgz autocheck2 && rm -rf autocheck2
