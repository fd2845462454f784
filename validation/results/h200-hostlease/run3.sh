#!/bin/bash
# h200-hostlease's third device call (lead, 2026-12-04, fourteenth session), from the repository root, OUT set, the
# static perfmodel carried as .dev-host/perfmodel. The check of the two-depth calibration, planned after the second
# call and before this one: 1. `perfmodel calibrate --on-gpu --profile eager` with the default probe (Llama-2-7B's
# class at 4 and 16 layers: host_per_kernel and host_per_step); 2. the same seven models and points, each in its own
# process, walls first (hf_grid.py --walls-first); 3. GPT-2's own probe (4 and 12 layers), recorded for
# `calibrate --profile eager --probe-model gpt2`.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
export PERFMODEL_DATA_DIR=$PWD
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
cp hardware/h200.calibration.yaml $OUT/lease.calibration.yaml
timeout 90 .dev-host/perfmodel calibrate --on-gpu --profile eager --card h200 --calibration $OUT/lease.calibration.yaml \
  --probe-out $OUT/probe_start.json > $OUT/calibrate.txt 2>&1; echo "calibrate rc=$?" | tee -a $OUT/calibrate.txt
for m in smollm2-1.7b llama3-8b qwen2.5-7b mistral-7b qwen3-8b llama2-13b gpt2; do
  timeout 75 python3 validation/scripts/production/hf_grid.py $OUT/hf_$m --plan hostlease --models $m --budget 60 \
    --walls-first > /dev/null 2>&1
  echo "$m rc=$?"
done
timeout 60 python3 validation/scripts/production/profile_host.py --model gpt2 --layers 4,12 --out $OUT/probe_gpt2.json \
  >> $OUT/calibrate.txt 2>&1; echo "probe gpt2 rc=$?" | tee -a $OUT/calibrate.txt
date -u >> $OUT/date.txt
python3 validation/scripts/production/merge_hf_runs.py $OUT
grep -v "Warn\|warn_once\|crop" $OUT/calibrate.txt | tail -16; grep -h "wall" $OUT/hf/run.log | grep -v "before any" | cut -c1-160
