#!/usr/bin/env bash
# Runs the validation backend on the GPU machine (through the `run` tool), from the repo root:
#   bash validation/scripts/device_run.sh [BUILD_DIR] [STEPS]      STEPS: any of test,selftest,calibrate,suite (comma separated)
# Writes to $OUT (or ./out): tests.log, selftest.json, calibration-raw.json, kernels.json, run.log
set -u
B=${1:-build-gpu}
STEPS=${2:-test,selftest,calibrate,suite}
O=${OUT:-out}
mkdir -p "$O"
SHA=${GIT_SHA:-uncommitted}
# cuBLAS 13 from the toolkit or from the pip wheel
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib $(python3 -c 'import nvidia.cublas,os;print(os.path.join(nvidia.cublas.__path__[0],"lib"))' 2>/dev/null); do
  [ -e "$d/libcublas.so.13" ] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
done
exec > >(tee -a "$O/run.log") 2>&1
echo "== $(date -u) on $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null)"
D="$B/perfmodel-gpu-driver"
rc=0
START=$(date +%s)
case ",$STEPS," in *,test,*)
  echo "== doctest"; timeout 120 "$B/perfmodel_validation_tests" 2>&1 | tail -n 40 | tee "$O/tests.log"; rc=$((rc | ${PIPESTATUS[0]})) ;; esac
case ",$STEPS," in *,selftest,*)
  echo "== selftest"; timeout 150 "$D" selftest "$O/selftest.json" 2>"$O/selftest.log"; r=$?; rc=$((rc | r)); tail -n 20 "$O/selftest.log" | grep -v "^ *$" | grep -E "WRONG|ERR|DETECT|run_sequence|spin" ;; esac
case ",$STEPS," in *,calibrate,*)
  echo "== calibrate"; timeout 120 "$D" calibrate "$O/calibration-raw.json" 2>"$O/calibrate.log"; rc=$((rc | $?)); grep -i fail "$O/calibrate.log" | head ;; esac
case ",$STEPS," in *,suite,*)
  echo "== suite"
  mkdir -p /tmp/suite
  T0=$(date +%s)
  TOTAL=${TOTAL_BUDGET:-540}
  SB=$(( TOTAL - (T0 - START) ))
  [ -n "${SUITE_BUDGET:-}" ] && [ "$SUITE_BUDGET" -lt "$SB" ] && SB=$SUITE_BUDGET
  echo "suite budget ${SB} s"
  for p in gemm_ copy_ add_ gelu_fused_ gelu_unfused_ silu_mul_ rmsnorm_ layernorm_ softmax_naive_ softmax_fused_ embedding_ rotary_ kv_append_ attn_decode_ attn_prefill_fused_ attn_prefill_unfused_; do
    left=$(( SB - ($(date +%s) - T0) ))
    [ $left -lt 5 ] && { echo "budget exhausted before $p"; continue; }
    timeout $((left + 20)) "$D" suite "/tmp/suite/$p.json" --prefix "$p" --max-seconds "${CASE_SECONDS:-1.0}" --budget "$left" --git-sha "$SHA" 2>>"$O/suite.log" | sed "s/^/$p: /"
  done
  python3 - "$O/kernels.json" /tmp/suite/*.json <<'PY'
import json, sys
out, files = sys.argv[1], sys.argv[2:]
meta, cases = None, []
for f in files:
    try:
        d = json.load(open(f))
    except Exception as e:
        print("could not read", f, e); continue
    meta = meta or d["meta"]; cases += d["cases"]
order = {}
s = {"cases": len(cases), "ok": sum(c["ok"] for c in cases), "correct": sum(c["correct"] for c in cases),
     "converged": sum(c["converged"] for c in cases)}
json.dump({"schema_version": 1, "meta": meta, "summary": s, "cases": cases}, open(out, "w"), indent=0)
print("SUITE MERGED:", s)
bad = [c["name"] + ": " + c["error"] for c in cases if not c["ok"]]
print("\n".join(bad[:30]))
PY
  ;; esac
echo "== done rc=$rc"
exit $rc
