#!/bin/bash
# heldout25's compiled decode steps (lead, 2026-12-03, seventh session): compiled_gaps.py per model, fresh process each.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
D=validation/scripts/production
J=$OUT/compiled25.jsonl; L=$OUT/run.log
start=$(date +%s)
left() { echo $(( 130 - ($(date +%s) - start) )); }
run() { local t=$1; shift; local l; l=$(left); if [ "$l" -lt 15 ]; then echo "skip $*" >>"$L"; return; fi
  [ "$t" -gt "$l" ] && t=$l; echo "[$(( $(date +%s) - start ))s] start $*" >>"$L"
  timeout "$t" python3 "$D/compiled_gaps.py" "$@" --out "$J" >>"$L" 2>&1; echo "[$(( $(date +%s) - start ))s] rc=$? $*" >>"$L"; }
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1; nproc >>"$OUT/nvidia-smi.txt"; lscpu | head -20 >>"$OUT/nvidia-smi.txt"
run 60 yi-6b 3 1:2900,24:800
run 55 mistral-nemo-12b 3 1:1300,10:2400
echo "done $(( $(date +%s) - start ))s" >>"$L"
