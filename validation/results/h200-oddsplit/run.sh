#!/bin/bash
# h200-oddsplit's device run (lead, 2026-12-04, twelfth session), from the repository root, OUT set: FlashAttention-2's
# split decode at head dims short of the kernel's (validation/scripts/production/oddsplit.py), then Nsight Compute's
# sections of the split kernel (flash2_ncu.py --decode-odd). Nothing is fitted before it is read.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 120 python3 validation/scripts/production/run_all.py $OUT --shapes oddsplit --groups attention --budget 100 > /dev/null 2>&1; echo "run_all rc=$?"
rm -f $OUT/hf.json
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
timeout 200 $NCU --clock-control none --nvtx --nvtx-include "measure/" -k regex:flash_fwd_splitkv_kernel \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
  --section WarpStateStats --section InstructionStats \
  --csv --page raw python3 validation/scripts/production/flash2_ncu.py --decode-odd > $OUT/ncu.csv 2> $OUT/ncu.log; echo "ncu rc=$?"
date -u >> $OUT/date.txt; tail -2 $OUT/run.log | cut -c1-250
