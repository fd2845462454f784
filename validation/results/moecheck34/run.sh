#!/bin/bash
# moecheck34's device run (planned 2026-12-07, thirty-fourth session), from the repository root, OUT set, either card:
# vLLM-style fused MoE layers at 20 points no set has (moe_plans.py PLAN_TOKENS["moecheck34"]), priced before the run
# as main stood after the thirty-fourth session's changes (README.md). ~1 min.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi -L; nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 200 python3 validation/scripts/moe/run_fused2.py $OUT --plan moecheck34 --no-mla --budget 170 > /dev/null 2>&1
echo "run_fused2 rc=$?"; grep -c "ok True" $OUT/run.log; grep -v "ok True" $OUT/run.log | tail -3 | cut -c1-300
nvidia-smi >> $OUT/smi.txt 2>&1; date -u >> $OUT/date.txt
cd $OUT && tar czf k.tgz * && find . -mindepth 1 -maxdepth 1 ! -name k.tgz -exec rm -rf {} +
