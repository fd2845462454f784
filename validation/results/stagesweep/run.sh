#!/bin/bash
# stagesweep (planned 2026-12-07, thirty-seventh session; issue 10): one fused_moe GEMM's routed rows under eight
# tiles / warps / stages that vLLM's H100 files mix at prefill (probe_stages.py), Qwen3-30B-A3B and DeepSeek-V2-Lite
# at 4096 and 16384 tokens; prices committed before the run (prices_h100-sxm.txt). H100, ~3 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/stagesweep
nvidia-smi -L > $OUT/stagesweep/card.txt 2>&1; date -u >> $OUT/stagesweep/card.txt
timeout 420 python3 validation/scripts/moe/probe_stages.py $OUT/stagesweep/stages.jsonl > $OUT/stagesweep/log.txt 2>&1
echo "probe_stages rc=$? $(wc -l < $OUT/stagesweep/stages.jsonl) records"; tail -1 $OUT/stagesweep/log.txt | cut -c1-200
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $OUT/stagesweep/card.txt; date -u >> $OUT/stagesweep/card.txt
cd $OUT && tar czf s.tgz stagesweep && rm -rf stagesweep
