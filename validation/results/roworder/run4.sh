#!/bin/bash
# roworder4 (planned 2026-12-07 after h100-roworder; exploratory): does the footprint the scattered rows span set the
# cost? The same GEMMs with the w2 input's rows spread F = 1, 2, 4 apart (ROWORDER_SPREAD: a strided view, nothing else
# changes): Mixtral-8x7B at 4096 tokens (235 / 470 / 940 MB) and Qwen3-235B-A22B at 16384 (403 / 806 / 1612 MB), in the
# three orders. If align over sorted follows the footprint (Mixtral at 4096: 1.07 at F 1 towards 1.38 / 1.50, the
# ratios of 8192 / 16384 tokens), the spanned memory (address translation's reach) is the mechanism; if it stays, the
# rows' length or the K loop is. H100 or H200, ~2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/roworder4
nvidia-smi -L > $OUT/roworder4/card.txt 2>&1; date -u >> $OUT/roworder4/card.txt
ROWORDER_SPREAD=1,2,4 timeout ${ROWORDER_TIMEOUT:-120} python3 validation/scripts/moe/probe_roworder.py \
  $OUT/roworder4/order.jsonl 4096 mixtral-8x7b > $OUT/roworder4/log.txt 2>&1
ROWORDER_SPREAD=1,2,4 timeout ${ROWORDER_TIMEOUT:-120} python3 validation/scripts/moe/probe_roworder.py \
  $OUT/roworder4/order.jsonl 16384 qwen3-235b-a22b >> $OUT/roworder4/log.txt 2>&1
echo "probe_roworder rc=$? $(wc -l < $OUT/roworder4/order.jsonl) records"; tail -1 $OUT/roworder4/log.txt | cut -c1-200
date -u >> $OUT/roworder4/card.txt
cd $OUT && tar czf r4.tgz roworder4 && rm -rf roworder4
