#!/bin/bash
# h200-flash2wide's device run (lead, 2026-12-04, thirteenth session), from the repository root, OUT set: FlashAttention-2's
# decode with the GQA group stepped at fixed units and keys (validation/scripts/production/flash2wide.py), then Nsight
# Compute's sections of its kernels at group 8 and 48 (ncu_flash2_wide.py). Nothing is fitted before it is read.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 150 python3 validation/scripts/production/run_all.py $OUT --shapes flash2wide --groups attention --budget 130 > /dev/null 2>&1; echo "run_all rc=$?"
rm -f $OUT/hf.json
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
timeout 200 $NCU --clock-control none -k regex:flash_fwd --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section LaunchStats --section InstructionStats --csv --page raw python3 validation/scripts/production/ncu_flash2_wide.py > $OUT/ncu.csv 2> $OUT/ncu.log; echo "ncu rc=$?"
date -u >> $OUT/date.txt; tail -2 $OUT/run.log | cut -c1-250
