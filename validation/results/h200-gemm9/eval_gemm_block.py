# gemm9: held-out/fitted figures of a fixed gemm block (fit_gemm.py's sets), no fit.
import os, sys, tempfile
sys.path.insert(0, "validation/scripts/production")
import fit_gemm as F
pm = os.path.abspath(sys.argv[1]); mode = sys.argv[2]
g5 = {"fixed": 1.5, "split_k_reduce": 3.5, "cta_walk_per_1024_k": 3.8, "stream_efficiency": 0.86, "fp8_peak": 1460, "cta_walk_latency_share": 0.35}
with tempfile.TemporaryDirectory() as d:
    info, files = F.case_sets(d)
    cal = os.path.join(d, "t.yaml")
    base = open(F.CAL).read()
    open(cal, "w").write(F.with_gemm(base, g5, ("fused",)) if mode == "block" else base)
    rows = F.cases(pm, cal, files, info)
for label in sorted({r[0] for r in rows}):
    for part, keep in (("fitted", True), ("held out", False)):
        errs = [p / m - 1 for lb, im, f, p, m in rows if lb == label and f == keep]
        if errs:
            md, p9 = F.stats(errs)
            print(f"{label} {part}: {len(errs)} cases, median {md*100:.1f} %, p90 {p9*100:.1f} %")
