"""Branch rotary's figures: targets.py's Inductor row (six sets, fused profile, held out as targets.py
reads them) and the compiled row ops / rotary of h200-heldout17 and h200-heldout18 (every case held
out), under a calibration (default: hardware/h200.calibration.yaml), plus every torch.compile rotary case.

    python3 validation/scripts/production/rotary_figures.py [build/tools/perfmodel/perfmodel] [calibration.yaml]
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import targets as T  # noqa: E402

R = "validation/results/"
B = sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel"
CAL = sys.argv[2] if len(sys.argv) > 2 else None


def show(label, e, parts=None):
    n, m, q = T.summary(e)
    print(f"{label}: n={n} median {100 * m:.1f} % p90 {100 * q:.1f} %" + (f"  [{parts}]" if parts else ""))


sets = [T.Kernels(B, R + f"{n}/kernels.json", f, CAL) for n, f in (
    ("h200-production", True), ("h200-eltwise3", False), ("h200-eltwise4", True), ("h200-eltwise5", False),
    ("h200-eltwise6", True), ("h200-eltwise14", False))]
e, parts = T.pooled(sets, "fused", T.is_small)
show("Inductor row, six sets (fused)", e, parts)
for h in ("h200-heldout17", "h200-heldout18"):
    s = T.Kernels(B, R + h + "/kernels.json", False, CAL)
    show(h + " compiled row ops", s.errors("compiled", T.is_small))
    show(h + " compiled rotary", s.errors("compiled", lambda c: c["kernel"] == "rotary"))
print("every torch.compile rotary case, compiled profile (predicted / measured - 1):")
for n in ("h200-production", "h200-production-repeat", "h200-eltwise3", "h200-inductorsmall", "h200-heldout17",
          "h200-heldout18"):
    extra = ["--calibration", CAL] if CAL else []
    out = subprocess.run([B, "accuracy", "--card", "h200", "--measured", R + n + "/kernels.json", "--format", "json"] + extra,
                         capture_output=True, text=True, check=True).stdout
    for c in json.loads(out)["profile_cases"]:
        if c["profile"] == "compiled" and c["kernel"] == "rotary":
            print(f"  {n:24s} {c['name']:42s} {c['measured_s'] * 1e6:7.2f} us  {100 * c['error']:+6.1f} %")
