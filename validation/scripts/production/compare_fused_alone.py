#!/usr/bin/env python3
"""The fused profile's steps against the GPU-alone replay (validation/results/h200-fused-step-alone).

    python3 validation/scripts/production/compare_fused_alone.py [calibration.yaml]

fused_step_alone.py timed every point's graph replay also behind a GPU spin (`spin_first_s`: the host's
cudaGraphLaunch hidden, as a serving engine hides it by launching the next step's graph while the GPU
runs this one). The price compared with it is the profile's kernel time plus g per predicted launch,
where g = median over the EVEN decode points of (spin_first - kernel sum) / predicted launches (one
value, both times measured); the odd decode points and all prefill points are held out.
"""
import statistics
import sys
import tempfile

import compare_fused_step as c

DATA = "validation/results/h200-fused-step-alone/results.jsonl"
BINARY = "build/tools/perfmodel/perfmodel"


def quantile(v, f):
    return sorted(v)[int(round(f * (len(v) - 1)))]


def main(cal):
    if cal:
        c.CALIBRATION[:] = ["--calibration", cal]
    pts = [r for r in c.load(DATA) if r.get("kind") == "point" and r.get("ok")]
    tmp = tempfile.mkdtemp()
    rows = [(p, c.predict(BINARY, p, tmp)["step"]) for p in pts]
    dec = [(p, s) for p, s in rows if p["phase"] == "decode"]
    g = statistics.median([(p["spin_first_s"] - p["kernel_s"]) / s["launches"] for p, s in dec][0::2])
    over = [p["device_s"] / p["spin_first_s"] - 1 for p, _ in rows]
    host = [p["host_launch_s"] * 1e6 for p, _ in rows]
    print(f"{len(rows)} points; measure()'s replay over the GPU-alone one: median {100 * statistics.median(over):.1f} %, "
          f"max {100 * max(over):.1f} %; host in graph.replay(): median {statistics.median(host):.0f} us "
          f"({min(host):.0f}-{max(host):.0f})")
    print(f"g = {g * 1e6:.3f} us per predicted launch (even decode points)")
    print("| set | points | median abs | p90 abs | mean signed |")
    print("| --- | ---: | ---: | ---: | ---: |")
    sets = {"decode, held out (odd)": [r for i, r in enumerate(dec) if i % 2 == 1],
            "prefill (held out)": [r for r in rows if r[0]["phase"] == "prefill"],
            "all 72": rows,
            "all 72, the profile's own price vs measure()'s replay": None}
    for name, rs in sets.items():
        if rs is None:
            e = [s["time_s"] / p["device_s"] - 1 for p, s in rows]
        else:
            e = [(s["device_time_s"] + g * s["launches"]) / p["spin_first_s"] - 1 for p, s in rs]
        a = [abs(x) for x in e]
        print(f"| {name} | {len(e)} | {100 * statistics.median(a):.2f} % | {100 * quantile(a, 0.9):.2f} % | "
              f"{100 * statistics.mean(e):+.2f} % |")


if __name__ == "__main__":
    sys.path.insert(0, "validation/scripts/production")
    main(sys.argv[1] if len(sys.argv) > 1 else None)
