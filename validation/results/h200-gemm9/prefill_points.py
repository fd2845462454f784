# gemm9: per prefill point, the step's graph error and each category's kernel-time error.
import sys, os
sys.path.insert(0, "validation/scripts/production")
import compare_fused_step as C
path, pm = sys.argv[1], sys.argv[2]
if len(sys.argv) > 3: C.CALIBRATION[:] = ["--calibration", sys.argv[3]]
pts = [r for r in C.load(path) if r.get("kind") == "point" and r.get("ok") and r["phase"] == "prefill"]
for r in C.compare(pts, pm):
    p = r["point"]
    cats = " ".join(f"{c} {r['pred'][c]/r['meas'][c]-1:+.3f} ({r['pred'][c]*1e3:.3f}/{r['meas'][c]*1e3:.3f}ms)" for c in ("gemm", "rope_kv", "attention") if r["meas"][c] > 0)
    print(f"{p['model']:<15} ctx{p['ctx']:<5} graph {r['graph_err']:+.4f}  {cats}")
