#!/bin/bash
# Device run of validation/results/h200-freshhost and h200-streammix (2026-12-03), from the repository root, OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0
S=$SECONDS
nvidia-smi > $OUT/nvidia-smi.txt 2>&1
timeout 150 python3 validation/scripts/production/stream_probe.py $OUT/streams.jsonl > $OUT/streams.log 2>&1
echo "streams done at $((SECONDS-S)) s" >> $OUT/run.log
for p in "llama3-8b 1 512" "llama3-8b 16 2048" "llama3-8b 64 1024" "llama2-7b 1 2048" "llama2-7b 32 512" "qwen2.5-7b 8 1024" "qwen2.5-7b 4 4096"; do
  if [ $((SECONDS-S)) -gt 470 ]; then echo "skip $p" >> $OUT/run.log; continue; fi
  timeout 90 python3 validation/scripts/production/fresh_step.py $p $OUT/fresh.jsonl >> $OUT/fresh.log 2>&1
  echo "fresh $p rc=$? at $((SECONDS-S)) s" >> $OUT/run.log
done
tail -5 $OUT/streams.log
cat $OUT/run.log
grep -h "compiled " $OUT/fresh.log | cut -c1-200
