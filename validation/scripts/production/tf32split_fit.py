"""Branch tf32split: the CUTLASS split-K tf32 calls (kernel names) of every committed set, predicted by a
perfmodel binary (fused profile), and kCutlassSplitFixedS's fit (cutlass_tf32_split.cpp).

    python3 validation/scripts/production/tf32split_fit.py build/tools/perfmodel/perfmodel [--all]

Fit: the median of measured - predicted over the even-index CUTLASS calls of h200-tf32split and
h200-tf3217 (fit sets), added to the constant compiled in. Check: the odd half, h200-heldout17 / 19 / 20.
--all: every tf32 call at M <= 64 of every set, before -> after style rows (name, kernel, pred, meas).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

FIT = ("h200-tf32split", "h200-tf3217")
CHECK = ("h200-heldout16", "h200-heldout17", "h200-heldout19", "h200-heldout20", "h200-heldgemm17",
         "h200-production", "h200-heldout18")


def predict(binary, path, profile=os.environ.get("PROFILE", "fused")):
    out = subprocess.run([binary, "accuracy", "--card", "h200", "--measured", path, "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    return {c["name"]: c for c in d["profile_cases"] if c["profile"] == profile}


def main():
    binary = sys.argv[1]
    show_all = "--all" in sys.argv
    fit_res, rows = [], []
    for s in FIT + CHECK:
        path = f"validation/results/{s}/kernels.json"
        whole = json.load(open(path))
        cases = whole["cases"]
        # only the tf32 cases, so the accuracy run is short
        tf = [c for c in cases if c.get("dtype") == "tf32" and c.get("kernel") == "gemm" and c["m"] <= 64]
        if not tf:
            continue
        index = {c["name"]: i for i, c in enumerate(cases)}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(dict(whole, cases=tf, summary={}), f)
        pred = predict(binary, f.name)
        os.unlink(f.name)
        for c in tf:
            p = pred.get(c["name"])
            if p is None:
                continue
            cut = any("cutlass_80" in k for k in c["kernel_names"])
            even = index[c["name"]] % 2 == 0
            if s in FIT and even and cut:
                fit_res.append(p["measured_s"] - p["predicted_s"])
            if cut or show_all:
                rows.append((s, c["name"], "cutlass" if cut else "xmma/other", p["predicted_s"] * 1e6,
                             p["measured_s"] * 1e6, p["error"], "fit" if (s in FIT and even) else "held"))
    for r in rows:
        print(f"{r[0]:16s} {r[1]:44s} {r[2]:10s} {r[3]:7.2f} {r[4]:7.2f} {r[5] * 100:+6.1f}% {r[6]}")
    held = [abs(r[5]) for r in rows if r[6] == "held" and r[2] == "cutlass"]
    if held:
        q = sorted(held)
        print(f"held-out CUTLASS calls: {len(held)}, median {statistics.median(held) * 100:.1f} %, "
              f"p90 {q[min(len(q) - 1, int(0.9 * len(q)))] * 100:.1f} %")
    if fit_res:
        print(f"fit: {len(fit_res)} calls, median measured - predicted {statistics.median(fit_res) * 1e6:+.2f} us "
              f"(add to kCutlassSplitFixedS)")


if __name__ == "__main__":
    main()
