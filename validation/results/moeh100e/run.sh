#!/bin/bash
# moeh100e's device run (planned 2026-12-06, twenty-ninth session), from the repository root, OUT set, on either lent
# card: vLLM-style fused MoE layers at 23 points no set has (validation/scripts/moe/moe_plans.py PLAN_TOKENS["moeh100e"]:
# one or two padded row blocks an expert, many, and decode past the experts). Prices written before the run, two price sets
# on each card: prices_max_<card>.txt (the committed model: the larger of the weight stream and the L2 tile loads) and
# prices_pnorm3s_<card>.txt (the weight stream alone, not the K-loops floor, and the real tile loads joined as a 3-norm; l2_tile_rate as committed, its fit point unmoved:
# pnorm3s.calibration.yaml). This form was chosen after seeing h100-moeh100b, -c and -d, so only this
# run decides it. Rule set before the run: the 3-norm is adopted if its grouped GEMMs' |error| median over all 23
# layers is lower than the committed model's and its p90 not higher (score_moe_prices.py); else it stays a trial.
# About 2 min. Results to validation/results/<card>-moeh100e.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi -L; nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
mkdir -p $OUT/moe
timeout 240 python3 validation/scripts/moe/run_fused2.py $OUT/moe --plan moeh100e --no-mla --budget 200 > /dev/null 2>&1
echo "run_fused2 rc=$?"; grep -c "ok True" $OUT/moe/run.log; grep -v "ok True" $OUT/moe/run.log | tail -3 | cut -c1-300
nvidia-smi >> $OUT/smi.txt 2>&1; date -u >> $OUT/date.txt
if nvidia-smi -L | grep -q H200; then
  mkdir -p $OUT/ncu && OUT=$OUT/ncu timeout 100 bash validation/results/prefillncu/run.sh
  mkdir -p $OUT/h36 && OUT=$OUT/h36 timeout 200 bash validation/results/heldout36/h36.sh
fi
cd $OUT && tar czf r.tgz * && find . -mindepth 1 -maxdepth 1 ! -name r.tgz -exec rm -rf {} +
