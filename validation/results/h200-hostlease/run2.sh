#!/bin/bash
# h200-hostlease's second device call (lead, 2026-12-04, fourteenth session), from the repository root, OUT set, the
# static perfmodel carried as .dev-host/perfmodel. After the first call's steps ran 1.2-2.3x slower per kernel than
# each process's first point: 1. profiler_drag.py times one step before and after torch.profiler sessions (two
# models, one process each); 2. the calibration's probe on this lease; 3. the same seven models and points as the
# first call, each in its own process, every wall timed before any kernel profile (hf_grid.py --walls-first).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
export PERFMODEL_DATA_DIR=$PWD
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 70 python3 validation/scripts/production/profiler_drag.py --model llama3-8b --batch 1 --ctx 1500 --sessions 4 \
  --out $OUT/drag.jsonl > /dev/null 2>&1; echo "drag llama3-8b rc=$?"
timeout 70 python3 validation/scripts/production/profiler_drag.py --model qwen3-8b --batch 24 --ctx 900 --sessions 3 \
  --out $OUT/drag.jsonl > /dev/null 2>&1; echo "drag qwen3-8b rc=$?"
cp hardware/h200.calibration.yaml $OUT/lease.calibration.yaml
timeout 60 .dev-host/perfmodel calibrate --on-gpu --profile eager --card h200 --calibration $OUT/lease.calibration.yaml \
  --probe-out $OUT/probe_start.json > $OUT/calibrate.txt 2>&1; echo "calibrate rc=$?" | tee -a $OUT/calibrate.txt
for m in smollm2-1.7b llama3-8b qwen2.5-7b mistral-7b qwen3-8b llama2-13b gpt2; do
  timeout 75 python3 validation/scripts/production/hf_grid.py $OUT/hf_$m --plan hostlease --models $m --budget 60 \
    --walls-first > /dev/null 2>&1
  echo "$m rc=$?"
done
date -u >> $OUT/date.txt
python3 validation/scripts/production/merge_hf_runs.py $OUT   # (inline in the call as run, the same code)
python3 -c "
import json
for l in open('$OUT/drag.jsonl'):
    r = json.loads(l); print(r['model'], r['stage'], 'op %.2f us' % (r['op_host_s'] * 1e6), 'step host %.2f ms' % (r['step_host_s'] * 1e3), 'wall %.2f ms' % (r['step_wall_s'] * 1e3), r['profiler_enabled'])"
grep -A12 "eager host on" $OUT/calibrate.txt | grep "host_per_kernel\|host time"; grep -h "wall" $OUT/hf/run.log | grep -v "before any" | cut -c1-160
