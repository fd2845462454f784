#!/usr/bin/env bash
# Step validations and calibration on the GPU machine, through the `run` tool, from the repo root:
#   bash validation/scripts/steps.sh BUILD_DIR
# Writes $OUT/calibration-raw.json, $OUT/h200.calibration.yaml, $OUT/steps.tar.gz (one JSON per
# step: validate --output) and $OUT/steps.log.
set -u
B=${1:-build-cuda}
O=${OUT:-out}
mkdir -p "$O" /tmp/steps
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib $(python3 -c 'import nvidia.cublas,os;print(os.path.join(nvidia.cublas.__path__[0],"lib"))' 2>/dev/null); do
  [ -e "$d/libcublas.so.13" ] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
done
# perfmodel hands validate / calibrate --on-gpu to perfmodel-gpu beside it: carry both.
P="$B/tools/perfmodel/perfmodel"
export PERFMODEL_DATA_DIR="$PWD"
exec > >(tee -a "$O/steps.log") 2>&1
echo "== $(date -u) $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null)"
if [ "${CALIBRATE:-1}" = 1 ]; then
  timeout 120 "$P" calibrate --on-gpu --raw "$O/calibration-raw.json" --output "$O/h200.calibration.yaml" 2>"$O/calibrate.err"
fi
START=$(date +%s)
BUDGET=${BUDGET:-420}
run() {  # run model phase batch ctx
  local left=$(( BUDGET - ($(date +%s) - START) ))
  [ $left -lt 15 ] && { echo "budget exhausted: skip $*"; return; }
  local f="/tmp/steps/$1-$2-b$3-ctx$4.json"
  timeout $left "$P" validate --on-gpu --model "$1" --phase "$2" --batch "$3" --ctx "$4" --max-seconds "${CASE_SECONDS:-0.25}" \
    --output "$f" --format csv 2>/dev/null >/dev/null
  echo "$1 $2 b$3 ctx$4 rc=$? $(python3 -c "import json;d=json.load(open('$f'))['step'];print('pred %.1f us  graph %s us  sum %.1f us' % (d['predicted_s']*1e6, ('%.1f' % (d['measured_graph_s']*1e6)) if d['measured_graph_s'] else '-', d['measured_sum_s']*1e6))" 2>/dev/null)"
}
while read -r m ph b c; do
  [ -z "$m" ] && continue
  run "$m" "$ph" "$b" "$c"
done < "${STEP_LIST:-validation/scripts/steps.txt}"
tar czf "$O/steps.tar.gz" -C /tmp/steps .
