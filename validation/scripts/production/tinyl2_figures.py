"""Branch tinyl2's figures: the compiled profile's row ops, rotary and SiLU*mul of the check sets
h200-heldout17/18/19 (never fitted), targets.py's six-set Inductor row (fused), and the tiny (<= 1.6 MB)
torch.compile SiLU*mul / rotary calls of every committed set, median / p90 of |pred/meas - 1|.

    python3 validation/scripts/production/tinyl2_figures.py [build/tools/perfmodel/perfmodel] [calibration.yaml]
(run from the repository root whose hardware/ calibration is meant)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import targets as T  # noqa: E402

R = "validation/results/"
B = sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel"
CAL = sys.argv[2] if len(sys.argv) > 2 else None


def show(label, e):
    n, m, q = T.summary(e)
    print(f"{label}: n={n} median {100 * m:.1f} % p90 {100 * q:.1f} %")


sets = [T.Kernels(B, R + f"{n}/kernels.json", f, CAL) for n, f in (
    ("h200-production", True), ("h200-eltwise3", False), ("h200-eltwise4", True), ("h200-eltwise5", False),
    ("h200-eltwise6", True), ("h200-eltwise14", False))]
e, parts = T.pooled(sets, "fused", T.is_small)
show("Inductor row, six sets (fused)", e)
for h in ("h200-heldout17", "h200-heldout18", "h200-heldout19"):
    s = T.Kernels(B, R + h + "/kernels.json", False, CAL)
    show(h + " compiled row ops", s.errors("compiled", T.is_small))
    show(h + " compiled rotary", s.errors("compiled", lambda c: c["kernel"] == "rotary"))
    show(h + " compiled silu_mul", s.errors("compiled", lambda c: c["kernel"] == "silu_mul"))
tiny_fit, tiny_held = [], []
for n in ("h200-production", "h200-production-repeat", "h200-inductorsmall", "h200-eltwise3", "h200-eltwise4",
          "h200-eltwise5", "h200-eltwise6", "h200-heldout17", "h200-heldout18", "h200-heldout19"):
    raw = {c["name"]: c for c in json.load(open(R + n + "/kernels.json"))["cases"]}
    s = T.Kernels(B, R + n + "/kernels.json", False, CAL)
    errs = s.errors("compiled", lambda c: c["kernel"] in ("rotary", "silu_mul") and c["implementation"] == "torch.compile"
                    and raw[c["name"]]["bytes"] <= 1.6e6)
    (tiny_held if "heldout" in n else tiny_fit).extend(errs)
show("tiny SiLU*mul / rotary, committed sets (compiled)", tiny_fit)
show("tiny SiLU*mul / rotary, h200-heldout17/18/19 (compiled)", tiny_held)
