#!/bin/bash
# gapstate (planned 2026-12-06, twenty-fifth session), from the repository root, OUT set, on either lent card: is the
# split decode's time outside its two kernels (the replayed call less their device times: 0.3-1.8 / 0.7-3.3 /
# -0.8-2.3 / 2.1-5.1 us on four H100 leases with the same kernels) the machine's or the GPU's state? lonesplit's 22
# calls, timed and profiled three times in one lease: as the lease starts (cold), right after 25 s of bf16 GEMMs
# (hot), and after 25 s idle (idle), the SM clock, power and temperature read before each. If the gap moves with the
# state inside one lease, the state sets it; if it holds, the machine does. About 2.5 min.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
for phase in cold hot idle; do
  if [ $phase = hot ]; then
    timeout 60 python3 -c "
import time, torch
a = torch.randn(8192, 8192, device='cuda', dtype=torch.bfloat16); t = time.time()
while time.time() - t < 25: a = (a @ a).clamp_(-1, 1)
torch.cuda.synchronize()"
  fi
  [ $phase = idle ] && sleep 25
  { echo "$phase $(date -u +%T)"; nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader; } >> $OUT/state.txt
  timeout 100 python3 validation/scripts/production/run_all.py $OUT/$phase/lonesplit --shapes lonesplit --groups attention \
    --budget 80 > /dev/null 2>&1
  rm -f $OUT/$phase/lonesplit/hf.json
  timeout 60 python3 validation/scripts/production/split_kernels.py $OUT/$phase/lonesplit lonesplit > $OUT/$phase/profile.log 2>&1
  echo "$phase rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
done
