#!/bin/bash
# autocheck (planned 2026-12-07, thirty-sixth session; issue 10): the layouts `--moe-config auto` now prices at vLLM's
# shipped fused_moe files that no set here measured (one GPU's share under tensor parallelism: Mixtral-8x7B at TP 2 and
# 4, Mixtral-8x22B at TP 4, Qwen3-30B-A3B at TP 2, Qwen3-235B-A22B at TP 8), each under vLLM's file for the GPU in
# hand and under the default config, 1-16384 tokens. Prices for both cards committed before the run (README.md).
# H100 or H200, ~3 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/autocheck
nvidia-smi -L > $OUT/autocheck/card.txt 2>&1; date -u >> $OUT/autocheck/card.txt
timeout 420 python3 validation/scripts/moe/probe_tuned.py --auto-files $OUT/autocheck/tuned.jsonl 1,16,128,1024,4096,16384 \
  > $OUT/autocheck/log.txt 2>&1
echo "probe_tuned rc=$? $(wc -l < $OUT/autocheck/tuned.jsonl) records"; tail -1 $OUT/autocheck/log.txt | cut -c1-200
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/autocheck/card.txt; date -u >> $OUT/autocheck/card.txt
cd $OUT && tar czf a.tgz autocheck && rm -rf autocheck
