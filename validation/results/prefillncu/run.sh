#!/bin/bash
# prefillncu's device run (planned 2026-12-06, twenty-eighth session), from the repository root, OUT set: Nsight
# Compute over vLLM-style fused_moe GEMMs at prefill points (validation/scripts/moe/probe_prefill_ncu.py), to read why
# the prefills run slower than priced (h100-moeh100b). A diagnosis: nothing is priced or fitted on it.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt; which ncu >> $OUT/date.txt 2>&1
timeout 400 ncu --clock-control none -k regex:_fused_moe_gemm --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section Occupancy --section LaunchStats \
  --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second \
  python3 validation/scripts/moe/probe_prefill_ncu.py > $OUT/ncu.txt 2> $OUT/ncu.err
echo "ncu rc=$?"; date -u >> $OUT/date.txt
grep -c "^case" $OUT/ncu.txt; tail -3 $OUT/ncu.err
