#!/bin/bash
# graph task's device run (validation/results/h200-compiled2): compiled_gaps.py per model, fresh
# process each, in priority order, 240 s in all. Scripts carried in .dev-graph/.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
D=${D:-.dev-graph}   # D=validation/scripts/production to run from the repository
J=$OUT/compiled2.jsonl; L=$OUT/run.log
start=$(date +%s)
left() { echo $(( 240 - ($(date +%s) - start) )); }
run() { local t=$1; shift; local l; l=$(left); if [ "$l" -lt 15 ]; then echo "skip $*" >>"$L"; return; fi
  [ "$t" -gt "$l" ] && t=$l; echo "[$(( $(date +%s) - start ))s] start $*" >>"$L"
  timeout "$t" python3 "$D/compiled_gaps.py" "$@" --out "$J" >>"$L" 2>&1; echo "[$(( $(date +%s) - start ))s] rc=$? $*" >>"$L"; }
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1; nproc >>"$OUT/nvidia-smi.txt"; lscpu | head -20 >>"$OUT/nvidia-smi.txt"
run 50 tinyllama-1.1b 22 1:512,32:2048
run 80 llama3-8b 32 1:512,32:2048
run 55 qwen2.5-7b 16 1:1024,8:4096
run 40 llama2-7b 8 4:1024,64:512
run 35 mistral-7b 8 16:1024,1:4096
echo "done $(( $(date +%s) - start ))s" >>"$L"
