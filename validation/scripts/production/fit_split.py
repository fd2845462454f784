#!/usr/bin/env python3
"""Branch splitodd's one fitted number (lib/src/cost/inductor_split.cpp): split_ipc_cta, the warp instructions a
clock that one split-reduction partial CTA issues alone on its SM. The instructions a padded element come from
Nsight Compute (validation/results/h200-splitodd) and the SM's sustained issue (split_ipc_sm, 3.0) too; only the
lone CTA's latency-bound rate is fitted, on the EVEN calls (by kernel, rows, cols) of the three split grids
(h200-splitred's split_probe.jsonl and split_probe2.jsonl, h200-splitodd's split_probe3.jsonl), all three ops
together: scanned over 0.20-4.00 in steps of 0.05, the least sum of squared relative errors of the calls' times
kept. Their odd calls, split_probe_repeat.jsonl and every committed set (h200-eltwise6, h200-heldout17..27) are
held out.
(Branch splitred fitted two issue shares here the same way; splitodd replaced them.)

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

PROBES = ["validation/results/h200-splitred/split_probe.jsonl", "validation/results/h200-splitred/split_probe2.jsonl",
          "validation/results/h200-splitodd/split_probe3.jsonl"]
CAL = "hardware/h200.calibration.yaml"
KEY = "split_ipc_cta"


def calibration(value):
    return re.sub(rf"(\n      {KEY}:) [0-9.]+", lambda m: f"{m.group(1)} {value:.2f}", open(CAL).read(), count=1)


def errors(binary, suite, value):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(calibration(value))
    out = subprocess.run([binary, "accuracy", "--card", "h200", "--calibration", f.name, "--measured", suite,
                          "--format", "json"], capture_output=True, text=True, check=True).stdout
    os.unlink(f.name)
    return {c["name"]: c["error"] for c in json.loads(out)["profile_cases"] if c["profile"] == "compiled"}


def suite_of(probe):
    path = tempfile.mktemp(suffix=".json")
    sys.argv = ["", probe, path]
    split_probe_suite.main()
    return path


def halves(probe):
    """The probe's calls sorted by (kernel, rows, cols): the even-indexed ones of each kernel fit, the odd ones not."""
    recs = [json.loads(l) for l in open(probe)]
    recs = sorted((r for r in recs if "kernels" in r), key=lambda r: (r["kernel"], r["rows"], r["cols"]))
    by_kernel = {}
    for r in recs:
        by_kernel.setdefault(r["kernel"], []).append(f"compile_{r['kernel']}_bf16_{r['rows']}x{r['cols']}")
    return [n for v in by_kernel.values() for n in v[::2]], [n for v in by_kernel.values() for n in v[1::2]]


def main(binary):
    suites = [(suite_of(p), *halves(p)) for p in PROBES]
    best = None
    for i in range(20, 401, 5):
        sse = 0
        for suite, fit, _ in suites:
            e = errors(binary, suite, i / 100)
            sse += sum(e[n] ** 2 for n in fit)
        if best is None or sse < best[0]:
            best = (sse, i / 100)
    print(f"{KEY}: {best[1]:.2f} (fit SSE {best[0] * 1e4:.0f} %^2 over {sum(len(f) for _, f, _ in suites)} calls)")
    for probe, (suite, _, held) in zip(PROBES, suites):
        e = errors(binary, suite, best[1])
        v = sorted(abs(e[n]) for n in held)
        print(f"held-out {os.path.basename(probe)} odd calls: median {100 * v[len(v) // 2]:.1f} %, p90 "
              f"{100 * v[int(0.9 * len(v))]:.1f} %, max {100 * v[-1]:.1f} % ({len(v)} calls)")
        os.unlink(suite)
    s = suite_of("validation/results/h200-splitred/split_probe_repeat.jsonl")
    v = sorted(abs(x) for x in errors(binary, s, best[1]).values())
    print(f"held-out split_probe_repeat.jsonl: median {100 * v[len(v) // 2]:.1f} %, p90 {100 * v[int(0.9 * len(v))]:.1f} % "
          f"({len(v)} calls)")
    os.unlink(s)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel")
