#!/bin/bash
# fusedh100's device run (planned 2026-12-06, twenty-seventh session), from the repository root, OUT set: the fused
# profile's whole steps (fused_step.py: cuBLASLt GEMMs, Inductor's fused norm / rotary+KV write / SiLU*mul, cuDNN
# prefill and decode attention, one CUDA graph per step) on whichever card the lease gives.
#  A: h200-fused-step-cudnn's grid unchanged (4 models x b 1-128 x ctx 512-4096, prefill 512-4096); the points whose
#     KV cache does not fit 80 GB are recorded as errors.
#  B: four models no fused step has run (SmolLM2-1.7B MHA head dim 64, Llama-3.2-3B, Yi-6B GQA 8, Qwen2.5-14B) at
#     batches 4 / 16 / 48 and ctx 1024 / 3072, prefill 1024 / 6144.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
F=validation/scripts/production/fused_step.py
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 280 python3 $F --sweep --models tinyllama-1.1b,llama3-8b,qwen2.5-7b,mistral-7b --batches 1,8,32,64,128 \
  --out $OUT/grid --time-limit 250 > $OUT/grid.log 2>&1; echo "grid rc=$?"
timeout 200 python3 $F --sweep --models smollm2-1.7b,llama3.2-3b,yi-6b,qwen2.5-14b --batches 4,16,48 --ctxs 1024,3072 \
  --prefill-ctxs 1024,6144 --out $OUT/new --time-limit 170 > $OUT/new.log 2>&1; echo "new rc=$?"
date -u >> $OUT/date.txt; tail -n 2 $OUT/grid.log $OUT/new.log
