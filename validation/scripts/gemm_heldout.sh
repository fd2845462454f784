#!/usr/bin/env bash
# GEMMs of models the kernel suite does not hold (Qwen2-7B, Mistral-7B, Phi-3-mini, Gemma-2-9B:
# their QKV, O, gate/up and down projections) at token counts the suite does not use, on the GPU
# machine through the `run` tool, from the repo root:
#   bash validation/scripts/gemm_heldout.sh [BUILD_DIR]
# Writes $OUT/kernels.json (the suite's format) and $OUT/gemm.log.
set -u
B=${1:-build-gpu}
O=${OUT:-out}
mkdir -p "$O"
source "$(dirname "$0")/ncu_env.sh"
D="$B/perfmodel-gpu-driver"
: >"$O/cases.jsonl"
# model: qkv_n o_n gate_up_n down_n hidden intermediate
while read -r model qkv hidden inter; do
  for m in 1 24 200 1500 6000; do
    for lin in "qkv $qkv $hidden" "o $hidden $hidden" "gate_up $((2 * inter)) $hidden" "down $hidden $inter"; do
      set -- $lin
      line=$(timeout 60 "$D" case kernel=gemm m=$m n=$2 k=$3 name="gemm_bf16_m${m}_n$2_k$3_${model}_$1" max_seconds=0.5 cold=0 \
        2>>"$O/gemm.log" | grep '^{')
      [ -n "$line" ] && echo "$line" >>"$O/cases.jsonl"
    done
  done
done <<'LIST'
qwen2_7b 4608 3584 18944
mistral_7b 6144 4096 14336
phi3_mini 9216 3072 8192
gemma2_9b 8192 3584 14336
LIST
{
  echo '{"schema_version":1,"meta":{"card":"h200","what":"GEMMs of other models (validation/scripts/gemm_heldout.sh)","device":'
  "$D" info
  echo '},"cases":['
  paste -sd, "$O/cases.jsonl"
  echo ']}'
} >"$O/kernels.json"
python3 -c "
import json,sys; d=json.load(open('$O/kernels.json'))
print(len(d['cases']),'cases')
for c in d['cases']: print('%-48s %10.2f us clk %d-%d' % (c['name'], c['measured_s']*1e6, c['sm_clock_mhz_min'], c['sm_clock_mhz_max']))
"
