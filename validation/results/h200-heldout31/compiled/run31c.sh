#!/bin/bash
# heldout31's compiled decode steps (lead, 2026-12-04, thirteenth session): compiled_gaps.py per model, fresh process each.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
D=validation/scripts/production
J=$OUT/compiled31.jsonl; L=$OUT/run.log
start=$(date +%s)
left() { echo $(( 170 - ($(date +%s) - start) )); }
run() { local t=$1; shift; local l; l=$(left); if [ "$l" -lt 15 ]; then echo "skip $*" >>"$L"; return; fi
  [ "$t" -gt "$l" ] && t=$l; echo "[$(( $(date +%s) - start ))s] start $*" >>"$L"
  timeout "$t" python3 "$D/compiled_gaps.py" "$@" --out "$J" >>"$L" 2>&1; echo "[$(( $(date +%s) - start ))s] rc=$? $*" >>"$L"; }
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1; nproc >>"$OUT/nvidia-smi.txt"; lscpu | head -20 >>"$OUT/nvidia-smi.txt"
run 55 qwen3-4b 4 1:4500,24:1800
run 55 yi1.5-9b 4 1:3000,40:900
run 55 codestral-22b 3 1:2600,16:1400
echo "done $(( $(date +%s) - start ))s" >>"$L"
