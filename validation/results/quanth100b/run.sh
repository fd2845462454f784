#!/bin/bash
# quanth100b's device run (planned 2026-12-06, twenty-seventh session), from the repository root, OUT set:
# quant_gemm.py unchanged, the second half of h200-quant's cases (--part 1/2), which no H100 has run.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1
timeout 230 python3 validation/scripts/quant/quant_gemm.py $OUT --part 1/2 --budget 200 > $OUT/quant.log 2>&1
echo "quant_gemm rc=$?"; tail -n 2 $OUT/quant.log
