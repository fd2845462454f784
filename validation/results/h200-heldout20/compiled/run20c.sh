#!/bin/bash
# heldout20's compiled decode steps (lead, 2026-12-03): compiled_gaps.py per model, fresh process each.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
D=.dev-lead
J=$OUT/compiled20.jsonl; L=$OUT/run.log
start=$(date +%s)
left() { echo $(( 200 - ($(date +%s) - start) )); }
run() { local t=$1; shift; local l; l=$(left); if [ "$l" -lt 15 ]; then echo "skip $*" >>"$L"; return; fi
  [ "$t" -gt "$l" ] && t=$l; echo "[$(( $(date +%s) - start ))s] start $*" >>"$L"
  timeout "$t" python3 "$D/compiled_gaps.py" "$@" --out "$J" >>"$L" 2>&1; echo "[$(( $(date +%s) - start ))s] rc=$? $*" >>"$L"; }
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1; nproc >>"$OUT/nvidia-smi.txt"; lscpu | head -20 >>"$OUT/nvidia-smi.txt"
run 55 smollm2-135m 30 1:500,48:1400
run 55 mistral-nemo-12b 10 1:1200,16:2500
run 55 qwen2.5-32b 8 1:800,32:1500
run 55 yi1.5-9b 12 1:2000,64:900
echo "done $(( $(date +%s) - start ))s" >>"$L"
