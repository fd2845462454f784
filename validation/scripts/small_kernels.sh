#!/usr/bin/env bash
# Small and mid-size kernels at shapes the kernel suite does not hold (a held-out set for the
# latency terms: sweep round trips, thread chains, L2 residency), on the GPU machine through the
# `run` tool, from the repo root:
#   bash validation/scripts/small_kernels.sh [BUILD_DIR]
# Writes $OUT/kernels.json (the suite's format: `perfmodel accuracy --measured` reads it) and
# $OUT/small.log.
set -u
B=${1:-build-gpu}
O=${OUT:-out}
mkdir -p "$O"
source "$(dirname "$0")/ncu_env.sh"
D="$B/perfmodel-gpu-driver"
exec 3>"$O/cases.jsonl"
run() {  # run NAME key=value...
  local name=$1; shift
  local line
  line=$(timeout 30 "$D" case name="$name" max_seconds=0.3 cold=0 "$@" 2>>"$O/small.log" | grep '^{')
  [ -n "$line" ] && echo "$line" >&3
}
for r in 2 16 48 160 640 2500; do
  for k in copy add gelu_fused silu_mul rmsnorm layernorm softmax_fused embedding; do
    extra=""; [ "$k" = embedding ] && extra="vocab=32000"
    run "${k}_bf16_${r}x4096" kernel=$k rows=$r cols=4096 $extra
  done
  run "softmax_naive_bf16_${r}x4096" kernel=softmax_naive rows=$r cols=4096
  run "rmsnorm_residual_bf16_${r}x4096" kernel=rmsnorm rows=$r cols=4096 residual=1
done
for c in 2048 8192; do
  for r in 4 96; do
    for k in add silu_mul rmsnorm softmax_fused; do run "${k}_bf16_${r}x${c}" kernel=$k rows=$r cols=$c; done
  done
done
for t in 3 24 200 1500; do
  run "rotary_bf16_tokens${t}_h32_kv8_d128" kernel=rotary rows=$t batch=1 q_len=$t kv_len=$t heads=32 kv_heads=8 head_dim=128
  run "kv_append_bf16_tokens${t}_kv8_d128" kernel=kv_append batch=1 q_len=$t kv_len=$t heads=32 kv_heads=8 head_dim=128
done
exec 3>&-
{
  echo '{"schema_version":1,"meta":{"card":"h200","what":"small kernels outside the suite (validation/scripts/small_kernels.sh)","device":'
  "$D" info
  echo '},"cases":['
  paste -sd, "$O/cases.jsonl"
  echo ']}'
} >"$O/kernels.json"
python3 - "$O/kernels.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{len(d['cases'])} cases")
for c in d["cases"]:
    print(f"{c['name']:<40} {c['measured_s']*1e6:9.2f} us  rotated {c['rotated_bytes']/1e6:8.1f} MB  ok={c['ok']} correct={c['correct']}")
EOF
