# gemm9: the 72 fused steps' |graph| and |kernel-sum| error median / p90, all / decode / prefill,
# with test_fused_step_accuracy's quantile (linear interpolation).
import sys
sys.path.insert(0, "validation/scripts/production")
import compare_fused_step as C
path, pm = sys.argv[1], sys.argv[2]
if len(sys.argv) > 3: C.CALIBRATION[:] = ["--calibration", sys.argv[3]]
rows = C.compare([r for r in C.load(path) if r.get("kind") == "point" and r.get("ok")], pm)
def q(v, f):
    v = sorted(v); pos = f * (len(v) - 1); lo = int(pos); hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)
for phase in ("", "decode", "prefill"):
    sel = [r for r in rows if not phase or r["point"]["phase"] == phase]
    g = [abs(r["graph_err"]) for r in sel]; k = [abs(r["kernel_err"]) for r in sel]
    print(f"{phase or 'all':<8} {len(sel):3d} graph {q(g,.5)*100:.2f} / {q(g,.9)*100:.2f} %  kernels {q(k,.5)*100:.2f} / {q(k,.9)*100:.2f} %")
