"""What split_compare.py and softmax_compare.py share: every committed kernel suite's calls of one profile and kind
priced two ways (two builds, or one build under two calibrations), and the median / p90 of |predicted / measured - 1|
of each."""
import glob
import json
import statistics
import subprocess


def errors(binary, cal, path, profile, implementation, kernels):
    """name -> error of a suite's calls of that profile, implementation and kernel kinds ({} if it does not load)."""
    out = subprocess.run([binary, "accuracy", "--card", "h200", "--calibration", cal, "--measured", path, "--format",
                          "json"], capture_output=True, text=True)
    if out.returncode:
        return {}
    return {c["name"]: c["error"] for c in json.loads(out.stdout).get("profile_cases", [])
            if c["profile"] == profile and c["implementation"] == implementation and c["kernel"] in kernels}


def collect(old, new, profile, implementation, kernels):
    """old, new: (binary, calibration). Returns ({(file, name): error} before, the same after)."""
    before, after = {}, {}
    for f in sorted(glob.glob("validation/results/*/kernels*.json") + glob.glob("validation/results/*/*/kernels*.json")):
        o, n = errors(*old, f, profile, implementation, kernels), errors(*new, f, profile, implementation, kernels)
        for k in o:
            if k in n:
                before[(f, k)], after[(f, k)] = o[k], n[k]
    return before, after


def stats(before, after, keys, names=("old", "new")):
    a, b = sorted(abs(before[k]) for k in keys), sorted(abs(after[k]) for k in keys)
    q = lambda v: v[min(len(v) - 1, int(0.9 * len(v)))]  # noqa: E731
    return (f"{len(keys)} calls: {names[0]} {100 * statistics.median(a):.1f} / {100 * q(a):.1f} %, "
            f"{names[1]} {100 * statistics.median(b):.1f} / {100 * q(b):.1f} %")
