#!/usr/bin/env bash
# Second, short device check (engineer "gpu"): the backend after it took the library's KernelId /
# DType / KernelCase. doctest, selftest, three suite prefixes, one validate step. Writes to $OUT.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
B=.dev-gpu/bin; O=${OUT:-out}; mkdir -p "$O" /tmp/suite; export PERFMODEL_DATA_DIR="$PWD"
exec > >(tee -a "$O/run2.log") 2>&1
echo "== $(date -u) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
T0=$(date +%s)
echo "== doctest"; timeout 60 $B/perfmodel_validation_tests > "$O/tests2.log" 2>&1; echo "rc=$?"; tail -n 3 "$O/tests2.log"
echo "== selftest"; timeout 60 $B/perfmodel-gpu-driver selftest "$O/selftest2.json" 2>/tmp/selftest.log; echo "rc=$?"; grep -E "SELFTEST|DETECT|run_sequence" /tmp/selftest.log
for p in copy_ rmsnorm_ attn_decode_; do
  timeout 40 $B/perfmodel-gpu-driver suite "/tmp/suite/$p.json" --prefix "$p" --max-seconds 0.5 --budget 20 --git-sha "${GIT_SHA:-gpu}" 2>/dev/null | sed "s/^/$p: /"
done
python3 -c "
import json,sys
cs=[c for f in ['copy_','rmsnorm_','attn_decode_'] for c in json.load(open('/tmp/suite/'+f+'.json'))['cases']]
json.dump({'schema_version':1,'cases':cs},open('$O/kernels2.json','w'),indent=0)"
echo "== validate ($(( $(date +%s) - T0 )) s)"
timeout 60 $B/perfmodel validate --on-gpu --model llama2-7b --phase decode --batch 16 --ctx 2048 --max-seconds 0.25 \
  --output "$O/llama2-7b-decode-b16-ctx2048-2.json" --format csv > /dev/null 2>/tmp/v.err; echo "rc=$?"; tail -n 1 /tmp/v.err
echo "== done ($(( $(date +%s) - T0 )) s)"
