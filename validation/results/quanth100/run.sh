#!/bin/bash
# quanth100's device run (planned 2026-12-06, twenty-seventh session), from the repository root, OUT set, on whichever
# card the lease gives, the scripts unchanged:
#  quant_gemm.py --part 0/2 --stacks   h200-quant's first half (weight-only int4 / int8, fp8 tensor- / row-wise /
#                                      block, activation quantization, Llama-3-8B-shaped stacks of linears)
#  run_quant3.py                       decode attention over a bf16 and an fp8 KV cache (Triton split-KV, SDPA)
#  run_quant6.py                       quant6's held-out block-scaled FP8, int8 and fp8-KV shapes
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
Q=validation/scripts/quant
nvidia-smi > $OUT/smi.txt 2>&1
timeout 230 python3 $Q/quant_gemm.py $OUT --part 0/2 --budget 200 --stacks > $OUT/quant.log 2>&1; echo "quant_gemm rc=$?"
timeout 130 python3 $Q/run_quant3.py $OUT --budget 110 > $OUT/quant3.log 2>&1; echo "quant3 rc=$?"
timeout 80 python3 $Q/run_quant6.py $OUT --budget 60 > $OUT/quant6.log 2>&1; echo "quant6 rc=$?"
tail -n 2 $OUT/quant.log $OUT/quant3.log $OUT/quant6.log | cut -c1-200
