#!/usr/bin/env bash
# Device call for issue 13 (TP decode steps): Llama-3-8B and Llama-2-13B at TP=1 and TP=2, Llama-3-70B at TP=2,
# attention through SDPA's flash backend (split-KV decode); then, for the record, one Llama-3-8B point with the
# first run's folded-GQA call and the attention kernels each call launched (torch.profiler).
#   (on the device, from the repo root) bash .dev-parallel/run_tp.sh   -> files under $OUT
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
D=$(dirname "$0"); O=${OUT:-out}; mkdir -p "$O" /tmp/tp /tmp/tpf
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  nvidia-smi topo -m
  python3 -c 'import torch;print("torch",torch.__version__,"nccl",torch.cuda.nccl.version(),"cuda",torch.version.cuda,"gpus",torch.cuda.device_count())'
} > "$O/topology.txt" 2>&1
cat "$O/topology.txt"
timeout ${TP_LIMIT:-240} python3 $D/tp_decode.py --out /tmp/tp --probe ${TP_ARGS:-} 2>&1 | tee "$O/run.log"; echo "tp_decode rc ${PIPESTATUS[0]}"
cp /tmp/tp/tp_decode.csv "$O/" 2>/dev/null
timeout 60 python3 $D/tp_decode.py --out /tmp/tpf --attention folded --models llama3-8b --batches 1 --ctxs 8192 --reps 10 --probe 2>&1 | tee "$O/run_folded_probe.log"
cp /tmp/tpf/tp_decode.csv "$O/tp_decode_folded_probe.csv" 2>/dev/null
date -u
