#!/bin/bash
# roworder (planned 2026-12-07, thirty-ninth session; issue 10; exploratory): the default fused_moe tile's w13 / w2 under
# the same routed rows in three orders inside each expert (probe_roworder.py says why). H100 or H200, ~1-2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/roworder
nvidia-smi -L > $OUT/roworder/card.txt 2>&1; date -u >> $OUT/roworder/card.txt
timeout ${ROWORDER_TIMEOUT:-240} python3 validation/scripts/moe/probe_roworder.py $OUT/roworder/order.jsonl > $OUT/roworder/log.txt 2>&1
echo "probe_roworder rc=$? $(wc -l < $OUT/roworder/order.jsonl) records"; tail -1 $OUT/roworder/log.txt | cut -c1-300
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/roworder/card.txt; date -u >> $OUT/roworder/card.txt
cd $OUT && tar czf r.tgz roworder && rm -rf roworder
