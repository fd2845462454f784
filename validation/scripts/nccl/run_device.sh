#!/usr/bin/env bash
# Device call for issue 13: topology, NCCL's own tuning table, collective timings and TP decode steps on 2xH200.
#   (on the device, from the repo root) bash .dev-multigpu/run_device.sh   -> files under $OUT
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
D=$(dirname "$0"); O=${OUT:-out}; mkdir -p "$O" /tmp/nccl
B="python3 $D/bench_collectives.py"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv
  echo "== nvidia-smi topo -m"; nvidia-smi topo -m
  echo "== nvidia-smi nvlink -s"; nvidia-smi nvlink -s
  echo "== nvidia-smi nvlink -c (capabilities, GPU 0)"; nvidia-smi nvlink -c -i 0 2>&1 | head -20
  python3 -c 'import torch;print("torch",torch.__version__,"nccl",torch.cuda.nccl.version(),"cuda",torch.version.cuda,"gpus",torch.cuda.device_count())'
} > "$O/topology.txt" 2>&1
head -c 3000 "$O/topology.txt"
# NCCL's own model (tuning table at init) and, where this NCCL logs it, its per-call algo/proto choice.
[ -n "${SKIP_PROBE:-}" ] || NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING,COLL,GRAPH NCCL_DEBUG_FILE=/tmp/nccl/probe.%p.log \
  timeout 45 $B --out /tmp/nccl --probe > /tmp/nccl/probe.out 2>&1; echo "probe rc $?"; tail -n 5 /tmp/nccl/probe.out
cat /tmp/nccl/probe.*.log > "$O/nccl_debug.log" 2>/dev/null; ls -la /tmp/nccl
grep -E "NCCL version|Algo|algo|proto|Latency|Tree|Ring|Channel|channels" "$O/nccl_debug.log" | head -60
# Timings: one process group per op, so a hang in one op cannot take the others with it.
for op in all_reduce all_gather reduce_scatter all_to_all send_recv; do
  timeout 45 $B --out /tmp/nccl --ops $op --tag="-$op"; echo "$op rc $?"
done
timeout 40 $B --out /tmp/nccl --ops send_recv,all_reduce --eager --tag=-eager; echo "eager rc $?"
python3 - "$O/collectives.csv" /tmp/nccl/collectives-*.csv <<'PY'
import sys
out, files = sys.argv[1], sys.argv[2:]
lines = []
for i, f in enumerate(sorted(files)):
    rows = open(f).read().splitlines()
    lines += rows if not lines else rows[1:]
open(out, "w").write("\n".join(lines) + "\n")
print(len(lines) - 1, "rows")
PY
timeout 170 python3 $D/tp_decode.py --out /tmp/nccl; echo "tp_decode rc $?"
cp /tmp/nccl/tp_decode.csv "$O/" 2>/dev/null
cp /tmp/nccl/meta-all_reduce.json "$O/meta.json" 2>/dev/null
date -u
