#!/bin/bash
# h200-hostlease's device run (lead, 2026-12-04, fourteenth session), from the repository root, OUT set, the static
# perfmodel carried as .dev-host/perfmodel. 1. `perfmodel calibrate --on-gpu --profile eager` measures this lease's
# host (its own process); 2. transformers steps of seven models at new points, each model in its own process
# (hf_grid.py --plan hostlease); 3. the probe again, to see the host drift over the lease. At most 8 files come back:
# the per-model folders are merged into hf.json / run.log.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
export PERFMODEL_DATA_DIR=$PWD
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
cp hardware/h200.calibration.yaml $OUT/lease.calibration.yaml
timeout 60 .dev-host/perfmodel calibrate --on-gpu --profile eager --card h200 --calibration $OUT/lease.calibration.yaml \
  --probe-out $OUT/probe_start.json > $OUT/calibrate.txt 2>&1; echo "calibrate rc=$?" | tee -a $OUT/calibrate.txt
for m in smollm2-1.7b llama3-8b qwen2.5-7b mistral-7b qwen3-8b llama2-13b gpt2; do
  timeout 75 python3 validation/scripts/production/hf_grid.py $OUT/hf_$m --plan hostlease --models $m --budget 60 > /dev/null 2>&1
  echo "$m rc=$?"
done
timeout 60 python3 validation/scripts/production/profile_host.py --model llama2-7b --layers 8 --out $OUT/probe_end.json \
  >> $OUT/calibrate.txt 2>&1; echo "probe_end rc=$?" | tee -a $OUT/calibrate.txt
date -u >> $OUT/date.txt
python3 validation/scripts/production/merge_hf_runs.py $OUT   # (inline in the call as run, the same code)
rm -f $OUT/lease.calibration.yaml.host-probe.json
tail -14 $OUT/calibrate.txt; grep -h "wall" $OUT/hf/run.log | cut -c1-160
