#!/bin/bash
# h200-compgraph (lead, planned 2026-12-05, eighteenth session), from the repository root, OUT set, the static perfmodel
# of this commit or later carried as .dev-host/perfmodel (carry [".dev-host"]). Does a lease's own
# `calibrate --on-gpu --profile compiled --only graph` price that lease's other compiled steps better than the committed
# graph keys? 1. the calibrate's on-GPU sweep (compiled_gaps.py: Llama-3-8B and Qwen2.5-7B classes at 4 layers,
# Llama-2-7B's at 8, a process each, two shapes each) refits graph_kernel_gap and graph_call_host into a copy of the
# committed calibration; 2. three other models' compiled steps on the same lease, a process each, two shapes each,
# never fitted, both shapes timed before either is profiled (check.jsonl); 3. a second calibrate sweep at the end (the lease's drift). At most 8 files come back.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
export PERFMODEL_DATA_DIR=$PWD
t0=$(date +%s)
{ date -u; nvidia-smi; lscpu | grep -i "model name\|^CPU(s)\|MHz"; } > $OUT/smi.txt 2>&1
cp hardware/h200.calibration.yaml $OUT/lease.calibration.yaml
timeout 260 .dev-host/perfmodel calibrate --on-gpu --profile compiled --only graph --card h200 \
  --calibration $OUT/lease.calibration.yaml --steps-out /tmp/cal > $OUT/calibrate.txt 2>&1
echo "calibrate rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/calibrate.txt
cp /tmp/cal/compiled_steps.jsonl $OUT/cal_steps.jsonl 2>/dev/null
# The check's processes time both shapes before profiling either (--walls-first: no profiler session precedes a timed
# point; the calibrate's sweep, like every committed set, profiles each shape before timing the next). If the first
# one returns no good point, the others run as the sweep does.
wf=--walls-first
for spec in "mistral-7b 4 1:2048,16:1024" "qwen3-8b 6 1:1024,8:4096" "llama3.2-3b 8 1:512,24:2048"; do
  if [ $(( $(date +%s) - t0 )) -gt 440 ]; then echo "$spec skipped: time"; continue; fi
  timeout 90 python3 validation/scripts/production/compiled_gaps.py $spec --out $OUT/check.jsonl $wf > $OUT/check.log 2>&1
  echo "$spec $wf rc=$? at $(( $(date +%s) - t0 )) s"
  if [ -n "$wf" ] && ! grep -q '"ok": true' $OUT/check.jsonl 2>/dev/null; then wf=; tail -5 $OUT/check.log; fi
done
if [ $(( $(date +%s) - t0 )) -lt 470 ]; then
  timeout 100 python3 validation/scripts/production/compiled_gaps.py llama3-8b 4 1:512,16:2048 --out $OUT/end.jsonl \
    > /dev/null 2>&1; echo "end llama3-8b rc=$? at $(( $(date +%s) - t0 )) s"
fi
date -u >> $OUT/smi.txt
grep -v "Warn\|warn_once" $OUT/calibrate.txt | tail -30
