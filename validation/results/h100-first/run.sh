#!/bin/bash
# h100-first (lead, planned 2026-12-05): the first measurements on an H100, a card no key of perfmodel was fitted on
# (issue 10: the maintainers judge on the H100 too). Everything perfmodel predicts there comes from the H100's
# datasheet and the H200's calibration carried to the die's sibling (calibration_transfer.hpp): what a user without
# an H100 calibration gets. Run on kind nvidia-h100-x1, from the repository root, OUT set, nothing carried:
#     OUT=$OUT bash validation/results/h100-first/run.sh
# 1. h200-production's set as it was measured (run_all.py's default shapes: SDPA attention per backend, F.linear /
#    _scaled_mm GEMMs, eager and compiled row ops, transformers decode and prefill steps), ~150 s on the H200;
# 2. the fused profile's CUDA-graph steps with the GPU-alone replay and the host's launch (fused_step_alone.py,
#    h200-fused-step-alone's sweep), ~150 s;
# 3. h200-heldout16's shapes (attention, GEMMs, row ops) with the time left.
# Stops itself by 560 s. At most 8 files come back: smi.txt, prod/{kernels.json,hf.json,run.log},
# fused/results.jsonl, fused.log, ho16/{kernels.json,run.log}.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
left() { echo $(( 560 - ($(date +%s) - t0) )); }
{ date -u; nvidia-smi; nvidia-smi -q -d CLOCK,POWER,MEMORY | grep -v "^$" | head -90; lscpu | grep -i "model name\|^CPU(s)";
  python3 -c "import torch, transformers; print('torch', torch.__version__, 'cudnn', torch.backends.cudnn.version(),
'transformers', transformers.__version__, torch.cuda.get_device_name(0), torch.cuda.get_device_properties(0))"; } \
  > $OUT/smi.txt 2>&1
timeout 200 python3 validation/scripts/production/run_all.py $OUT/prod --budget 180 --case-seconds 0.4 > /dev/null 2>&1
echo "prod rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/smi.txt
timeout 190 python3 validation/scripts/production/fused_step_alone.py --sweep --batches 1,8,32,64,128 \
  --out $OUT/fused --time-limit 170 > $OUT/fused.log 2>&1
echo "fused rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/smi.txt
b=$(( $(left) - 25 ))
if [ $b -gt 60 ]; then
  timeout $(( b + 20 )) python3 validation/scripts/production/run_all.py $OUT/ho16 --shapes heldout16 \
    --groups attention,gemm,ops --budget $b --case-seconds 0.4 > /dev/null 2>&1
  echo "ho16 rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/smi.txt
fi
date -u >> $OUT/smi.txt
tail -3 $OUT/prod/run.log $OUT/fused.log $OUT/ho16/run.log 2>/dev/null
