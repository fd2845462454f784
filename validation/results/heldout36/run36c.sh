#!/bin/bash
# heldout36's compiled decode steps (planned 2026-12-06, twenty-sixth session): compiled_gaps.py per model, a fresh
# process each, within 150 s.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
D=validation/scripts/production
J=$OUT/compiled36.jsonl; L=$OUT/run.log
start=$(date +%s)
left() { echo $(( 150 - ($(date +%s) - start) )); }
run() { local t=$1; shift; local l; l=$(left); if [ "$l" -lt 15 ]; then echo "skip $*" >>"$L"; return; fi
  [ "$t" -gt "$l" ] && t=$l; echo "[$(( $(date +%s) - start ))s] start $*" >>"$L"
  timeout "$t" python3 "$D/compiled_gaps.py" "$@" --out "$J" >>"$L" 2>&1; echo "[$(( $(date +%s) - start ))s] rc=$? $*" >>"$L"; }
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1; nproc >>"$OUT/nvidia-smi.txt"; lscpu | head -20 >>"$OUT/nvidia-smi.txt"
run 50 llama3-8b 4 1:5200,20:1300
run 50 qwen2.5-7b 4 1:2700,36:800
run 50 smollm2-1.7b 4 1:6600,64:900
echo "done $(( $(date +%s) - start ))s" >>"$L"
