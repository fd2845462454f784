#!/usr/bin/env bash
# Hardware-counter probe of chosen validation cases (diagnosis, not measurement of record):
#   bash validation/scripts/ncu_probe.sh [DRIVER]      on the GPU machine, writes $OUT/ncu_*.csv
# Each case runs once under Nsight Compute (clocks left alone); sections give DRAM/L2/L1 bytes,
# issue activity, occupancy and warp stall reasons, which say what bounds a kernel. The first
# launch of a case is its small correctness instance, so each probe takes two launches per kernel.
set -u
D=${1:-build-gpu/perfmodel-gpu-driver}
O=${OUT:-out}; mkdir -p "$O"
. "$(dirname "$0")/ncu_env.sh"
echo "ncu: $NCU"; "$NCU" --version | tail -1
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis"
probe() {  # name kernel-regex launch-count case-args...
  local name=$1 rx=$2 cnt=$3; shift 3
  timeout 150 "$NCU" --clock-control none $SECTIONS --csv --page details -k "regex:$rx" --launch-count "$cnt" \
    "$D" case "$@" max_seconds=0.02 cold=0 > "$O/ncu_$name.csv" 2> "$O/ncu_$name.err"
  echo "$name rc=$? lines=$(wc -l < "$O/ncu_$name.csv")"
}
probe softmax_fused_256M softmax_fused_kernel 2 kernel=softmax_fused dtype=bf16 rows=32768 cols=4096
probe rmsnorm_256M rmsnorm_kernel 2 kernel=rmsnorm dtype=bf16 rows=32768 cols=4096
probe softmax_fused_4M softmax_fused_kernel 2 kernel=softmax_fused dtype=bf16 rows=512 cols=4096
probe rmsnorm_4M rmsnorm_kernel 2 kernel=rmsnorm dtype=bf16 rows=512 cols=4096
probe rotary_262144 rotary_kernel 2 kernel=rotary dtype=bf16 batch=1 q_len=262144 kv_len=262144 heads=32 kv_heads=8 head_dim=128 rows=262144
probe rotary_8 rotary_kernel 2 kernel=rotary dtype=bf16 batch=1 q_len=8 kv_len=8 heads=32 kv_heads=8 head_dim=128 rows=8
probe silu_mul_64K silu_mul_kernel 2 kernel=silu_mul dtype=bf16 rows=8 cols=4096
probe copy_64K map_kernel 2 kernel=copy dtype=bf16 rows=8 cols=4096
probe decode_b32_ctx256_kv4 decode 4 kernel=attention_decode dtype=bf16 batch=32 heads=32 kv_heads=4 head_dim=128 q_len=1 kv_len=256
probe decode_b1_ctx8192_kv4_d64 decode 4 kernel=attention_decode dtype=bf16 batch=1 heads=32 kv_heads=4 head_dim=64 q_len=1 kv_len=8192
probe decode_b128_ctx256_kv4 decode 4 kernel=attention_decode dtype=bf16 batch=128 heads=32 kv_heads=4 head_dim=128 q_len=1 kv_len=256
probe decode_b32_ctx4096_kv32 decode 4 kernel=attention_decode dtype=bf16 batch=32 heads=32 kv_heads=32 head_dim=128 q_len=1 kv_len=4096
probe prefill_b2_s256 flash_fwd_kernel 2 kernel=attention_prefill_fused dtype=bf16 batch=2 heads=32 kv_heads=8 head_dim=128 q_len=256 kv_len=256 causal=1
probe unfused_softmax_b2_s1024 softmax_fused_kernel 2 kernel=attention_prefill_unfused dtype=bf16 batch=2 heads=32 kv_heads=8 head_dim=128 q_len=1024 kv_len=1024 causal=1
probe layernorm_32M layernorm_kernel 2 kernel=layernorm dtype=bf16 rows=4096 cols=4096
probe embedding_4M embedding_kernel 2 kernel=embedding dtype=bf16 rows=512 cols=4096 vocab=32000
probe kv_append_128 kv_append_kernel 2 kernel=kv_append dtype=bf16 batch=1 q_len=128 kv_len=128 heads=32 kv_heads=8 head_dim=128
tar czf "$O/ncu.tgz" -C "$O" $(cd "$O" && ls ncu_*) && rm -f "$O"/ncu_*
command -v cuobjdump >/dev/null && cuobjdump -sass "$D" 2>/dev/null | gzip > "$O/driver.sass.gz"
