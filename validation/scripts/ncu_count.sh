#!/usr/bin/env bash
# Counts the instructions each validation kernel executes (Nsight Compute, smsp__inst_executed),
# at shapes outside the timed suite, so the cost model can price instruction issue:
#   bash validation/scripts/ncu_count.sh [DRIVER]     on the GPU machine; writes $OUT/counts.csv
set -u
D=${1:-build-gpu/perfmodel-gpu-driver}
O=${OUT:-out}; mkdir -p "$O"
. "$(dirname "$0")/ncu_env.sh"
M=smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,gpu__time_duration.sum
echo "case,kernel,id,metric,value" > "$O/counts.csv"
count() {  # tag kernel-regex launches case-args...
  local tag=$1 rx=$2 cnt=$3; shift 3
  timeout 60 "$NCU" --clock-control none --metrics $M --csv -k "regex:$rx" --launch-count "$cnt" \
    "$D" case "$@" max_seconds=0.01 cold=0 2>/dev/null | python3 -c '
import csv, sys, io
txt = sys.stdin.read(); i = txt.find("\"ID\"")
for r in csv.DictReader(io.StringIO(txt[i:])) if i >= 0 else []:
    print(",".join([sys.argv[1], r["Kernel Name"].split("<")[0].split("::")[-1].replace(",", ";"), r["ID"], r["Metric Name"], r["Metric Value"].replace(",", "")]))
' "$tag" >> "$O/counts.csv"
  echo "$tag done"
}
# kernel name and launches per case (its small correctness instance runs first, then the shape itself)
declare -A RX=([copy]=map_kernel [add]=map_kernel [gelu_fused]=map_kernel [gelu_unfused]=map_kernel [silu_mul]=silu_mul_kernel
  [rmsnorm]=rmsnorm_kernel [layernorm]=layernorm_kernel [softmax_naive]="row_reduce_kernel|row_bcast_kernel|map_kernel"
  [softmax_fused]=softmax_fused_kernel [embedding]=embedding_kernel)
declare -A N=([gelu_unfused]=16 [softmax_naive]=10)
for k in copy add gelu_fused gelu_unfused silu_mul rmsnorm layernorm softmax_naive softmax_fused embedding; do
  for shape in 3000x4096 3000x1024 6x4096 3000x8192; do
    r=${shape%x*}; c=${shape#*x}
    count "${k}_${shape}" "${RX[$k]}" "${N[$k]:-2}" kernel=$k dtype=bf16 rows=$r cols=$c vocab=32000
  done
done
count rmsnorm_residual_3000x4096 rmsnorm_residual 2 kernel=rmsnorm dtype=bf16 rows=3000 cols=4096 residual=1
for t in 3000 6; do
  count rotary_$t rotary_kernel 2 kernel=rotary dtype=bf16 batch=1 q_len=$t kv_len=$t heads=32 kv_heads=8 head_dim=128
  count kv_append_$t kv_append_kernel 2 kernel=kv_append dtype=bf16 batch=1 q_len=$t kv_len=$t heads=32 kv_heads=8 head_dim=128
done
for s in 768 1536 3072; do
  count unfused_softmax_s$s softmax_fused_kernel 2 kernel=attention_prefill_unfused dtype=bf16 batch=1 heads=32 kv_heads=8 head_dim=128 q_len=$s kv_len=$s causal=1
done
# the rotary suite again: its kernel now reads a cos/sin cache (vLLM's form) instead of calling sincosf
timeout 120 "$D" suite "$O/rotary_suite.json" --prefix rotary_ --max-seconds 1.0 --git-sha "${GIT_SHA:-uncommitted}" 2> "$O/rotary_suite.log" | tail -2
grep -o "rotary_bf16[^ ]* *ok *[a-z]* err=[^ ]* med= *[0-9.]*" "$O/rotary_suite.log"
wc -l "$O/counts.csv"
