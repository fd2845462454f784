#!/usr/bin/env python3
"""Branch splitred's two shares (lib/src/cost/inductor_split.cpp): what a split reduction's partial sweep
issues, as a share of the whole looped kernel's calibrated rate, for softmax (split_softmax_issue_share)
and layer_norm (split_layernorm_issue_share). Fitted on the EVEN calls (by kernel, rows, cols) of
validation/results/h200-splitred/split_probe.jsonl only: each share is scanned over 0.05-1.00 in steps
of 0.01 and the one with the least sum of squared relative errors of the calls' times is kept. The odd
calls, split_probe2.jsonl (where measured) and every committed set (h200-eltwise6, h200-heldout17..26)
are held out.

    python3 validation/scripts/production/fit_split.py build/tools/perfmodel/perfmodel
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import split_probe_suite  # noqa: E402

PROBE = "validation/results/h200-splitred/split_probe.jsonl"
CAL = "hardware/h200.calibration.yaml"
KEYS = {"softmax_fused": "split_softmax_issue_share", "layernorm": "split_layernorm_issue_share"}


def calibration(shares):
    text = re.sub(r"\n      split_\w+_issue_share:[^\n]*", "", open(CAL).read())
    add = "".join(f"\n      {KEYS[k]}: {v:.2f}" for k, v in shares.items())
    return re.sub(r"(\n    inductor:[^\n]*)", lambda m: m.group(1) + add, text, count=1)


def errors(binary, suite, shares):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(calibration(shares))
    out = subprocess.run([binary, "accuracy", "--card", "h200", "--calibration", f.name, "--measured", suite,
                          "--format", "json"], capture_output=True, text=True, check=True).stdout
    os.unlink(f.name)
    return {c["name"]: c["error"] for c in json.loads(out)["profile_cases"] if c["profile"] == "compiled"}


def main(binary):
    recs = [json.loads(l) for l in open(PROBE)]
    recs = sorted((r for r in recs if "kernels" in r), key=lambda r: (r["kernel"], r["rows"], r["cols"]))
    by_kernel = {}
    for r in recs:
        by_kernel.setdefault(r["kernel"], []).append(r)
    fit = {k: [f"compile_{k}_bf16_{r['rows']}x{r['cols']}" for r in v[::2]] for k, v in by_kernel.items()}
    held = {k: [f"compile_{k}_bf16_{r['rows']}x{r['cols']}" for r in v[1::2]] for k, v in by_kernel.items()}
    suite = tempfile.mktemp(suffix=".json")
    sys.argv = ["", PROBE, suite]
    split_probe_suite.main()
    shares = {}
    for kernel in KEYS:
        best = None
        for i in range(5, 101):
            e = errors(binary, suite, {**shares, kernel: i / 100})
            sse = sum(e[n] ** 2 for n in fit[kernel])
            if best is None or sse < best[0]:
                best = (sse, i / 100)
        shares[kernel] = best[1]
        print(f"{KEYS[kernel]}: {best[1]:.2f} (fit SSE {best[0] * 1e4:.0f} %^2 over {len(fit[kernel])} calls)")
    e = errors(binary, suite, shares)
    for kernel, names in held.items():
        v = sorted(abs(e[n]) for n in names)
        print(f"held-out {kernel}: median {100 * v[len(v) // 2]:.1f} %, max {100 * v[-1]:.1f} % ({len(v)} calls)")
    os.unlink(suite)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel")
