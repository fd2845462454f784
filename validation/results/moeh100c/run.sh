#!/bin/bash
# moeh100c's device run (planned 2026-12-06, twenty-ninth session), from the repository root, OUT set, on either lent
# card: vLLM-style fused MoE layers at 18 prefill points no set has (validation/scripts/moe/moe_plans.py
# PLAN_TOKENS["moeh100c"]), to hold out fused_moe's L2 tile walk (eabdc96: l2_tile_rate fitted on one H200 prefill).
# Prices written before the run: prices_h200.txt, prices_h100-sxm.txt (price_moe_plan.py at the plan's commit).
# Rule set before the run: the L2 term holds if the grouped GEMMs' |error| median is at most 8 % and p90 at most 20 %
# on the card that comes (score_moe_prices.py). About 3 min. Results to validation/results/<card>-moeh100c.
# On an H200 only, then: the Nsight Compute probe (validation/results/prefillncu200/run.sh's) and heldout36.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi -L; nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
mkdir -p $OUT/moe
timeout 240 python3 validation/scripts/moe/run_fused2.py $OUT/moe --plan moeh100c --no-mla --budget 200 > /dev/null 2>&1
echo "run_fused2 rc=$?"; grep -c "ok True" $OUT/moe/run.log; grep -v "ok True" $OUT/moe/run.log | tail -3 | cut -c1-300
nvidia-smi >> $OUT/smi.txt 2>&1; date -u >> $OUT/date.txt
if nvidia-smi -L | grep -q H200; then
  mkdir -p $OUT/ncu && OUT=$OUT/ncu timeout 100 bash validation/results/prefillncu/run.sh
  mkdir -p $OUT/h36 && OUT=$OUT/h36 timeout 200 bash validation/results/heldout36/h36.sh
fi
cd $OUT && tar czf r.tgz * && find . -mindepth 1 -maxdepth 1 ! -name r.tgz -exec rm -rf {} +
