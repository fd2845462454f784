#!/bin/bash
# compiled2 device run: host_probe.py points in priority order, 255 s in all.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
P=.dev-compiled2/host_probe.py; J=$OUT/probe.jsonl; L=$OUT/probe.log
start=$(date +%s)
left() { echo $(( 245 - ($(date +%s) - start) )); }
run() { local t=$1; shift; local l; l=$(left); if [ "$l" -lt 12 ]; then echo "skip $*" >>"$L"; return; fi
  [ "$t" -gt "$l" ] && t=$l; echo "[$(( $(date +%s) - start ))s] start $*" >>"$L"
  timeout "$t" python3 "$P" "$@" --out "$J" >>"$L" 2>&1; echo "[$(( $(date +%s) - start ))s] rc=$? $*" >>"$L"; }
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1; nproc >>"$OUT/nvidia-smi.txt"; lscpu | head -20 >>"$OUT/nvidia-smi.txt"
run 30 source
run 50 compiled llama3-8b 2 1:512
run 60 eager llama2-7b 4,16 1:512 --generate
run 60 compiled llama3-8b 8 1:512,16:2048
run 40 eager qwen2.5-7b 4,16 1:512
run 30 eager gpt2 4,12 1:512
run 45 compiled qwen2.5-7b 4 8:1024
run 40 eager llama3-8b 4 1:512 --static-prefill 512,2048
echo "done $(( $(date +%s) - start ))s" >>"$L"
