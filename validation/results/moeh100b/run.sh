#!/bin/bash
# moeh100b's device run (planned 2026-12-06, twenty-eighth session), from the repository root, OUT set: vLLM-style
# fused MoE layers at points no set has (validation/scripts/moe/moe_plans.py PLAN_TOKENS["moeh100b"]), MoE only.
# About 2-3 min. Results to validation/results/<card>-moeh100b.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 330 python3 validation/scripts/moe/run_fused2.py $OUT --plan moeh100b --no-mla --budget 300 > /dev/null 2>&1
echo "run_fused2 rc=$?"
nvidia-smi >> $OUT/smi.txt 2>&1; date -u >> $OUT/date.txt
grep -c "ok True" $OUT/run.log; grep -v "ok True" $OUT/run.log | tail -5 | cut -c1-300
