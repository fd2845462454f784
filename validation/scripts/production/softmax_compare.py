#!/usr/bin/env python3
"""Branch softmaxocc's comparison: every committed kernel suite's eager torch.softmax call (the eager profile's
torch.eager calls) priced with the default calibration and with one lacking the two block-softmax IPC keys (the
chain alone, as before the branch): median / p90 of |predicted / measured - 1|, all calls and those over 2048
columns at more rows than SMs, and each of the latter.

    python3 validation/scripts/production/softmax_compare.py [perfmodel]
"""
import glob
import json
import re
import statistics
import subprocess
import sys
import tempfile

CAL = "hardware/h200.calibration.yaml"


def errors(binary, cal, path):
    out = subprocess.run([binary, "accuracy", "--card", "h200", "--calibration", cal, "--measured", path, "--format",
                          "json"], capture_output=True, text=True)
    if out.returncode:
        return {}
    return {c["name"]: c["error"] for c in json.loads(out.stdout).get("profile_cases", [])
            if c["profile"] == "eager" and c["implementation"] == "torch.eager" and c["kernel"] == "softmax_fused"}


def main(binary):
    without = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    without.write("".join(l for l in open(CAL) if not re.match(r"\s+softmax_block_(lone_)?ipc:", l)))
    without.close()
    old, new = {}, {}
    for f in sorted(glob.glob("validation/results/*/kernels*.json") + glob.glob("validation/results/*/*/kernels*.json")):
        o, n = errors(binary, without.name, f), errors(binary, CAL, f)
        for k in o:
            if k in n:
                old[(f, k)], new[(f, k)] = o[k], n[k]

    def stats(keys):
        a, b = sorted(abs(old[k]) for k in keys), sorted(abs(new[k]) for k in keys)
        q = lambda v: v[min(len(v) - 1, int(0.9 * len(v)))]  # noqa: E731
        return (f"{len(keys)} calls: before {100 * statistics.median(a):.1f} / {100 * q(a):.1f} %, "
                f"softmaxocc {100 * statistics.median(b):.1f} / {100 * q(b):.1f} %")

    def shape(k):
        m = re.search(r"_(\d+)x(\d+)$", k[1])
        return (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    block = [k for k in old if shape(k)[1] > 2048 and shape(k)[0] > 132]
    print("every eager softmax call", stats(list(old)))
    print("block kernels at more rows than SMs", stats(block))
    for k in sorted(block, key=shape):
        print(f"  {k[0].split('/')[2]:24s} {k[1]:40s} {100 * old[k]:+6.1f} -> {100 * new[k]:+6.1f} %")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel")
