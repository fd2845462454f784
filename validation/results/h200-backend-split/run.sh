#!/usr/bin/env bash
# Device check of the backend split (engineer "gpu", issue 9): doctest, selftest, the kernel suite,
# one `perfmodel validate --on-gpu` step (perfmodel execs perfmodel-gpu), one full calibration
# fitted in memory and refitted from its raw file. Run from the repo root; writes to $OUT.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
B=.dev-gpu/bin
O=${OUT:-out}
mkdir -p "$O" /tmp/suite
export PERFMODEL_DATA_DIR="$PWD"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib $(python3 -c 'import nvidia.cublas,os;print(os.path.join(nvidia.cublas.__path__[0],"lib"))' 2>/dev/null); do
  [ -e "$d/libcublas.so.13" ] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
done
exec > >(tee -a "$O/run.log") 2>&1
echo "== $(date -u) on $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null)"
ls -la $B
T0=$(date +%s)
echo "== doctest"; timeout 120 $B/perfmodel_validation_tests > "$O/tests.log" 2>&1; echo "rc=$?"; tail -n 4 "$O/tests.log"
echo "== selftest ($(( $(date +%s) - T0 )) s)"; timeout 120 $B/perfmodel-gpu-driver selftest "$O/selftest.json" 2>"$O/selftest.log"; echo "rc=$?"
grep -E "SELFTEST|DETECT|run_sequence|spin" "$O/selftest.log" | head -12
echo "== suite ($(( $(date +%s) - T0 )) s)"
for p in gemm_ copy_ add_ gelu_fused_ gelu_unfused_ silu_mul_ rmsnorm_ layernorm_ softmax_naive_ softmax_fused_ embedding_ rotary_ kv_append_ attn_decode_ attn_prefill_fused_ attn_prefill_unfused_; do
  timeout 60 $B/perfmodel-gpu-driver suite "/tmp/suite/$p.json" --prefix "$p" --max-seconds 0.5 --budget 25 --git-sha "${GIT_SHA:-gpu-branch}" 2>>"$O/suite.log" | sed "s/^/$p: /"
done
python3 - "$O/kernels.json" /tmp/suite/*.json <<'PY'
import json, sys
out, files = sys.argv[1], sys.argv[2:]
meta, cases = None, []
for f in files:
    try: d = json.load(open(f))
    except Exception as e: print("could not read", f, e); continue
    meta = meta or d["meta"]; cases += d["cases"]
s = {"cases": len(cases), "ok": sum(c["ok"] for c in cases), "correct": sum(c["correct"] for c in cases),
     "converged": sum(c["converged"] for c in cases)}
json.dump({"schema_version": 1, "meta": meta, "summary": s, "cases": cases}, open(out, "w"), indent=0)
print("SUITE MERGED:", s)
PY
echo "== validate ($(( $(date +%s) - T0 )) s)"
timeout 90 $B/perfmodel validate --on-gpu --model llama2-7b --phase decode --batch 16 --ctx 2048 --max-seconds 0.25 \
  --output "$O/llama2-7b-decode-b16-ctx2048.json" --format csv > "$O/validate.csv" 2>"$O/validate.err"; echo "rc=$?"; tail -n 3 "$O/validate.err"
echo "== calibrate ($(( $(date +%s) - T0 )) s)"
timeout 150 $B/perfmodel calibrate --on-gpu --raw "$O/calibration-raw.json" --output "$O/fit-in-memory.yaml" --format csv > "$O/calibrate.csv" 2>"$O/calibrate.log"; echo "rc=$?"
$B/perfmodel calibrate --from-raw "$O/calibration-raw.json" --card h200 --output /tmp/fit-from-raw.yaml --format csv >/dev/null; echo "refit rc=$?"
diff <(grep -v measured_on "$O/fit-in-memory.yaml") <(grep -v measured_on /tmp/fit-from-raw.yaml) > "$O/fit-diff.txt"; echo "fit diff lines: $(wc -l < "$O/fit-diff.txt")"
head -20 "$O/fit-diff.txt"
echo "== done ($(( $(date +%s) - T0 )) s)"
cd "$O" && tar czf device-check.tgz kernels.json selftest.json selftest.log suite.log tests.log llama2-7b-decode-b16-ctx2048.json validate.csv validate.err calibration-raw.json fit-in-memory.yaml fit-diff.txt calibrate.csv calibrate.log && rm -f kernels.json selftest.json selftest.log suite.log tests.log validate.csv validate.err calibrate.csv calibrate.log
