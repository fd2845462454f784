#!/usr/bin/env bash
# Per-kernel device time of flash-decoding (split kernel, combine) with the L2 left warm, as in a
# CUDA-graph replay, plus the split kernel's instruction count and issue latency (diagnosis):
#   bash validation/scripts/ncu_decode.sh [DRIVER]     on the GPU machine; writes $OUT/decode_kernels.csv
set -u
D=${1:-build-gpu/perfmodel-gpu-driver}
O=${OUT:-out}; mkdir -p "$O"
. "$(dirname "$0")/ncu_env.sh"
echo "shape,id,kernel,grid,metric,value" > "$O/decode_kernels.csv"
# batch heads kv_heads kv_len head_dim: the calibration's decode ramp, then suite shapes
while read -r b h kv len d; do
  timeout 90 "$NCU" --clock-control none --cache-control none --section WarpStateStats --section LaunchStats \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum --csv -k regex:decode --launch-count 6 \
    "$D" case kernel=attention_decode dtype=bf16 batch=$b heads=$h kv_heads=$kv q_len=1 kv_len=$len head_dim=$d max_seconds=0.01 cold=0 2>/dev/null |
  python3 -c '
import csv, sys, io
txt = sys.stdin.read(); i = txt.find("\"ID\"")
want = {"gpu__time_duration.sum", "smsp__inst_executed.sum", "Warp Cycles Per Issued Instruction", "Achieved Active Warps Per SM", "Waves Per SM"}
for r in (csv.DictReader(io.StringIO(txt[i:])) if i >= 0 else []):
    if r["Metric Name"] in want:
        print(",".join([sys.argv[1], r["ID"], r["Kernel Name"].split("<")[0].split("::")[-1], r["Grid Size"].replace(",", " "), r["Metric Name"], r["Metric Value"].replace(",", "")]))
' "b${b}_h${h}_kv${kv}_len${len}_d${d}" >> "$O/decode_kernels.csv"
done <<'SHAPES'
1 32 16 512 128
1 32 16 2048 128
1 32 16 6144 128
1 64 8 512 128
1 64 8 2048 128
1 64 8 6144 128
4 32 4 3072 128
2 16 2 1536 128
16 32 16 1536 128
16 32 8 3000 128
64 32 4 1500 128
48 32 4 700 64
24 64 8 2500 128
96 32 4 384 128
32 32 4 256 128
32 32 8 256 128
8 32 8 1024 128
1 32 4 8192 64
1 32 4 8192 128
128 32 4 256 128
32 32 4 4096 128
SHAPES
wc -l "$O/decode_kernels.csv"
