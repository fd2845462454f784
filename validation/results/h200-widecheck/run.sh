#!/bin/bash
# h200-widecheck's device run (lead, 2026-12-04, thirteenth session), from the repository root, OUT set: cuDNN's decode at
# wide GQA groups (validation/scripts/production/widecheck.py), planned after kSmIntake was fitted and before it was measured.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 200 python3 validation/scripts/production/run_all.py $OUT --shapes widecheck --groups attention --budget 180 > /dev/null 2>&1; echo "run_all rc=$?"
rm -f $OUT/hf.json
date -u >> $OUT/date.txt; tail -2 $OUT/run.log | cut -c1-250
