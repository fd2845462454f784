#!/usr/bin/env bash
# Power cap probe on the GPU machine (through the `run` tool), from the repo root:
#   bash validation/scripts/power_probe.sh [CLI_DIR]
# calibrate --only power, then six steps validated with the graph clock and power recorded; nvidia-smi
# samples clock, power and throttle reasons every 100 ms. Writes $OUT/power-raw.json, $OUT/smi.csv,
# $OUT/steps-power.tgz.
# CLI_DIR/tools/perfmodel must hold both perfmodel and perfmodel-gpu (validate runs the latter).
source validation/scripts/ncu_env.sh; export PERFMODEL_DATA_DIR=$PWD; P=${1:-.devbin}/tools/perfmodel/perfmodel
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv -lms 100 > $OUT/smi.csv & SMI=$!
$P calibrate --on-gpu --only power --card h200 --raw $OUT/power-raw.json 2>&1 | tail -3
mkdir -p /tmp/st
for s in "llama2-7b prefill 2 4096" "tinyllama-1.1b prefill 4 2048" "llama3-8b prefill 1 512" "llama3-8b decode 128 2048" "tinyllama-1.1b decode 128 2048" "llama2-7b prefill 1 1024"; do
  set -- $s
  $P validate --on-gpu --model $1 --phase $2 --batch $3 --ctx $4 --output /tmp/st/$1-$2-b$3-ctx$4.json --format csv >/dev/null 2>/tmp/st/$1-$2-b$3-ctx$4.err
  python3 -c "import json;d=json.load(open('/tmp/st/$1-$2-b$3-ctx$4.json'))['step'];print('$s', 'sum %.3f ms graph %.3f ms clk %s W %s'%(d['measured_sum_s']*1e3,d['measured_graph_s']*1e3,d.get('graph_sm_clock_mhz'),d.get('graph_power_w')))"
done
kill $SMI; tar czf $OUT/steps-power.tgz -C /tmp/st .
