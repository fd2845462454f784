#!/bin/bash
# roworder2 (planned 2026-12-07 after roworder's first run; exploratory): the same three orders on inputs of other
# sizes and row lengths (probe_roworder.py MODELS2) at 8192 and 16384 tokens. H100 or H200, ~2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/roworder2
nvidia-smi -L > $OUT/roworder2/card.txt 2>&1; date -u >> $OUT/roworder2/card.txt
timeout ${ROWORDER_TIMEOUT:-240} python3 validation/scripts/moe/probe_roworder.py $OUT/roworder2/order.jsonl 8192,16384 \
  mixtral-8x7b,deepseek-v2-lite,qwen3-235b-a22b,mixtral-8x22b > $OUT/roworder2/log.txt 2>&1
echo "probe_roworder rc=$? $(wc -l < $OUT/roworder2/order.jsonl) records"; tail -1 $OUT/roworder2/log.txt | cut -c1-300
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/roworder2/card.txt; date -u >> $OUT/roworder2/card.txt
cd $OUT && tar czf r2.tgz roworder2 && rm -rf roworder2
