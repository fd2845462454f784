#!/bin/bash
# h100-second (lead, 2026-12-05, twentieth session): a second call on the H100 lease that ran h100-first, planned
# after that call returned and before any of its results were read. From the repository root, OUT set, nothing
# carried, ~5 min. Nothing is fitted on it.
# 1. the H100's DRAM: a 4 GiB copy and a 4 GiB read (sum) timed with CUDA events (bw.txt);
# 2. FlashAttention-2 / cuDNN decode sets h200-tailpace, h200-widegroup, h200-widecheck again, on this card;
# 3. h200-heldout25's kernels (attention, GEMMs, row ops) with the time left.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
python3 - > $OUT/bw.txt 2>&1 <<'PY'
import torch
n = 4 << 30
a = torch.empty(n // 2, dtype=torch.bfloat16, device="cuda").normal_()
b = torch.empty_like(a)
def timed(f, reps=20):
    f(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        s.record(); f(); e.record(); e.synchronize(); ts.append(s.elapsed_time(e) / 1e3)
    ts.sort(); return ts[len(ts) // 2], ts[0]
for name, f, bytes_ in (("copy (read+write)", lambda: b.copy_(a), 2 * n), ("read (sum)", lambda: a.sum(dtype=torch.float32), n)):
    med, best = timed(f)
    print(f"{name}: {bytes_ / med / 1e9:.1f} GB/s median, {bytes_ / best / 1e9:.1f} best, {n >> 30} GiB buffer")
print(torch.cuda.get_device_name(0), torch.cuda.get_device_properties(0))
PY
for s in tailpace widegroup widecheck; do
  timeout 100 python3 validation/scripts/production/run_all.py $OUT/$s --shapes $s --groups attention --budget 80 > /dev/null 2>&1
  echo "$s rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/bw.txt; rm -f $OUT/$s/hf.json $OUT/$s/run.log
done
b=$(( 300 - ($(date +%s) - t0) ))
if [ $b -gt 60 ]; then
  timeout $(( b + 20 )) python3 validation/scripts/production/run_all.py $OUT/ho25 --shapes heldout25 --groups attention,gemm,ops \
    --budget $b --case-seconds 0.4 > /dev/null 2>&1
  echo "ho25 rc=$? at $(( $(date +%s) - t0 )) s" | tee -a $OUT/bw.txt; rm -f $OUT/ho25/hf.json
fi
cat $OUT/bw.txt
