#!/bin/bash
# h200-probe5 (lead, planned 2026-12-05, seventeenth session), from the repository root, OUT set, the static perfmodel
# of this commit or later carried as .dev-host/perfmodel (carry [".dev-host"]). Does a five-process probe mend a
# lease's eager walls? h200-heldout32/cores showed the host's pace is a draw of the process (2.97-7.53 ms over 28
# processes of one lease); its two one-process probes were both quiet ones and their median priced the walls worse
# (22.0 %) than the first alone (18.5 %). 1. `perfmodel calibrate --on-gpu --profile eager --only host` with the
# default five processes (two depths each, Llama-2-7B's class at 4 and 16 layers); 2. h200-heldout32's eleven models
# again (hf_grid.py --plan heldout32), each in its own process, every wall first; 3. five more probe processes at the
# end (their median beside the first five's). At most 8 files come back.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
export PERFMODEL_DATA_DIR=$PWD
t0=$(date +%s)
{ date -u; nvidia-smi; lscpu | grep -i "model name\|^CPU(s)\|MHz"; } > $OUT/smi.txt 2>&1
cp hardware/h200.calibration.yaml $OUT/lease.calibration.yaml
mkdir -p /tmp/probes
timeout 200 .dev-host/perfmodel calibrate --on-gpu --profile eager --only host --card h200 \
  --calibration $OUT/lease.calibration.yaml --probe-out /tmp/probes/start.json > $OUT/calibrate.txt 2>&1
echo "calibrate rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/calibrate.txt
for m in smollm2-135m qwen2.5-0.5b tinyllama-1.1b llama3.2-1b qwen3-4b yi-6b falcon3-7b llama2-7b mistral-nemo-12b \
         qwen2.5-14b gpt2-xl; do
  if [ $(( $(date +%s) - t0 )) -gt 440 ]; then echo "$m skipped: time"; continue; fi
  timeout 60 python3 validation/scripts/production/hf_grid.py $OUT/hf_$m --plan heldout32 --models $m --budget 45 \
    > /dev/null 2>&1
  echo "$m rc=$? at $(( $(date +%s) - t0 )) s"
done
for k in 1 2 3 4 5; do
  if [ $(( $(date +%s) - t0 )) -gt 545 ]; then echo "end probe $k skipped: time"; break; fi
  timeout 30 python3 validation/scripts/production/profile_host.py --model llama2-7b --layers 4,16 \
    --out /tmp/probes/end.$k.json > /dev/null 2>&1; echo "end probe $k rc=$?"
done
python3 -c "
import glob, json
print(json.dumps({p.split('/')[-1]: json.load(open(p)) for p in sorted(glob.glob('/tmp/probes/*.json'))}))" > $OUT/probes.json
date -u >> $OUT/smi.txt
python3 validation/scripts/production/merge_hf_runs.py $OUT
grep -v "Warn\|warn_once\|crop" $OUT/calibrate.txt | tail -20; grep -h "wall" $OUT/hf/run.log | cut -c1-140
