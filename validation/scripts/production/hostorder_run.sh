#!/bin/bash
# branch hostorder's device call (validation/results/h200-hostorder): h200-compiled's seven steps in
# one process in the order of record with the profiler as run then (fwd_prof), the same without any
# profiler (fwd_noprof), reversed without the profiler (rev_noprof), step 3 alone in a fresh process
# with 3 + 12 profiler sessions (fresh3_prof); steps 0, 1, 2 under one compile, step 0 timed again
# with three graphs recorded and after the profiler (same012_prof). One process at a time; 228 s in all.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
# the probe beside this script (carried in .dev-hostorder/, or validation/scripts/production/)
D=$(dirname "$0"); P=$D/hostorder_probe.py; J=$OUT/hostorder.jsonl; L=$OUT/run.log
start=$(date +%s)
left() { echo $(( ${TOTAL:-228} - ($(date +%s) - start) )); }
run() { local tag=$1; shift; local l; l=$(left); if [ "$l" -lt 25 ]; then echo "skip $tag" >>"$L"; return; fi
  echo "[$(( $(date +%s) - start ))s] start $tag $*" >>"$L"
  timeout "$l" python3 "$P" --tag "$tag" --out "$J" --deadline $(( l - 18 )) "$@" >>"$L" 2>&1
  echo "[$(( $(date +%s) - start ))s] rc=$? $tag" >>"$L"; }
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1; nproc >>"$OUT/nvidia-smi.txt"; lscpu | head -20 >>"$OUT/nvidia-smi.txt"
run fwd_prof --order 0,1,2,3,4,5,6 --profile
run fwd_noprof --order 0,1,2,3,4,5,6
run rev_noprof --order 6,5,4,3,2,1,0
run same012_prof --order 0,1,2 --same-model --profile
run fresh3_prof --order 3 --profile --extra-sessions 12
echo "done $(( $(date +%s) - start ))s" >>"$L"
grep -h "step\|rc=\|skip\|Error\|error" "$L" | tail -40
