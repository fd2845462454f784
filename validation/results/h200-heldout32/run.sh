#!/bin/bash
# h200-heldout32's device call (lead, 2026-12-05, sixteenth session), from the repository root, OUT set, the static
# perfmodel carried as .dev-host/perfmodel. 1. `perfmodel calibrate --on-gpu --profile eager --only host` with the
# default two-depth probe (Llama-2-7B's class at 4 and 16 layers); 2. eleven models (validation/scripts/production/
# heldout32.py), each in its own process, every wall first; 3. the same probe again (probe_end.json), and GPT-2's
# own (4 and 12 layers, for `--probe-model gpt2`). At most 8 files come back: date.txt joins smi.txt.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
export PERFMODEL_DATA_DIR=$PWD
t0=$(date +%s)
{ date -u; nvidia-smi; lscpu | grep -i "model name\|^CPU(s)\|MHz"; } > $OUT/smi.txt 2>&1
cp hardware/h200.calibration.yaml $OUT/lease.calibration.yaml
timeout 90 .dev-host/perfmodel calibrate --on-gpu --profile eager --only host --card h200 \
  --calibration $OUT/lease.calibration.yaml --probe-out $OUT/probe_start.json > $OUT/calibrate.txt 2>&1
echo "calibrate rc=$?" | tee -a $OUT/calibrate.txt
for m in smollm2-135m qwen2.5-0.5b tinyllama-1.1b llama3.2-1b qwen3-4b yi-6b falcon3-7b llama2-7b mistral-nemo-12b \
         qwen2.5-14b gpt2-xl; do
  if [ $(( $(date +%s) - t0 )) -gt 430 ]; then echo "$m skipped: time"; continue; fi
  timeout 60 python3 validation/scripts/production/hf_grid.py $OUT/hf_$m --plan heldout32 --models $m --budget 45 \
    > /dev/null 2>&1
  echo "$m rc=$? at $(( $(date +%s) - t0 )) s"
done
timeout 50 python3 validation/scripts/production/profile_host.py --model llama2-7b --layers 4,16 --out $OUT/probe_end.json \
  >> $OUT/calibrate.txt 2>&1; echo "probe_end rc=$?" | tee -a $OUT/calibrate.txt
if [ $(( $(date +%s) - t0 )) -lt 530 ]; then
  timeout 45 python3 validation/scripts/production/profile_host.py --model gpt2 --layers 4,12 --out $OUT/probe_gpt2.json \
    >> $OUT/calibrate.txt 2>&1; echo "probe gpt2 rc=$?" | tee -a $OUT/calibrate.txt
fi
date -u >> $OUT/smi.txt
python3 validation/scripts/production/merge_hf_runs.py $OUT
grep -v "Warn\|warn_once\|crop" $OUT/calibrate.txt | tail -20; grep -h "wall" $OUT/hf/run.log | cut -c1-140
