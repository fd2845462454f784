#!/usr/bin/env python3
"""The fused profile's steps against the GPU-alone replay and the wall (validation/results/h200-fused-step-alone).

    python3 validation/scripts/production/compare_fused_alone.py [calibration.yaml] [perfmodel]

fused_step_alone.py timed every point's graph replay three ways: measure()'s (CUDA events around
graph.replay() on an idle GPU: the GPU waits for the host's cudaGraphLaunch, the wall a loop that
synchronizes every step waits, `device_s`), behind a 3 ms GPU spin (`spin_first_s`: the launch
hidden, as a serving engine hides it by launching the next step's graph while the GPU runs this
one), and the host's time in graph.replay() (`host_launch_s`). The profile prices the GPU-alone
replay as step.time_s - step.host_time_s (kernels + graph_kernel_gap per predicted launch) and the
wall as step.time_s (+ graph_launch_per_node per predicted launch, the host's launch). Both keys
were fitted on this set (fit_graph_gap.py): graph_kernel_gap on the even decode points,
graph_launch_per_node on the even points; the rows say which points are held out of which. The
GPU-alone rows price the replay as it ran, behind its 3 ms spin (`--gpu-rest 0.003`: the power cap
averages over the rest too, branch gemmdef); the wall rows back to back (`SPIN_REST = 0` in the
environment prices the GPU-alone rows back to back too, as before gemmdef). With a
calibration from before branch graphhost11 (one graph_kernel_gap fitted on measure()'s replays, no
host time) the same rows give the former figures.
"""
import os
import statistics
import sys
import tempfile

import compare_fused_step as c
from compare_hf import pct

DATA = "validation/results/h200-fused-step-alone/results.jsonl"
# fused_replay_probe.py's spin before each GPU-alone replay, seconds (its spin(3e-3)).
SPIN_REST = os.environ.get("SPIN_REST", "0.003")


def line(name, e):
    m, q = pct(e)
    print(f"| {name} | {len(e)} | {100 * m:.2f} % | {100 * q:.2f} % | {100 * statistics.mean(e):+.2f} % |")


def main(cal, binary):
    if cal:
        c.CALIBRATION[:] = ["--calibration", cal]
    pts = [r for r in c.load(DATA) if r.get("kind") == "point" and r.get("ok")]
    tmp = tempfile.mkdtemp()
    rows = [(p, c.predict(binary, p, tmp)["step"]) for p in pts]
    rested = {id(p): c.predict(binary, p, tmp, ("--gpu-rest", SPIN_REST))["step"] for p in pts}
    dec = [(p, s) for p, s in rows if p["phase"] == "decode"]
    pre = [(p, s) for p, s in rows if p["phase"] == "prefill"]
    over = [p["device_s"] / p["spin_first_s"] - 1 for p, _ in rows]
    host = [p["host_launch_s"] * 1e6 for p, _ in rows]
    print(f"{len(rows)} points; measure()'s replay over the GPU-alone one: median {100 * statistics.median(over):.1f} %, "
          f"max {100 * max(over):.1f} %; host in graph.replay(): median {statistics.median(host):.0f} us "
          f"({min(host):.0f}-{max(host):.0f})")
    alone = lambda rs: [(rested[id(p)]["time_s"] - rested[id(p)]["host_time_s"]) / p["spin_first_s"] - 1  # noqa: E731
                        for p, _ in rs]
    wall = lambda rs: [s["time_s"] / p["device_s"] - 1 for p, s in rs]  # noqa: E731
    print("| set | points | median abs | p90 abs | mean signed |")
    print("| --- | ---: | ---: | ---: | ---: |")
    line("GPU-alone replay: decode, odd (held out of graph_kernel_gap)", alone(dec[1::2]))
    line("GPU-alone replay: prefill (held out of graph_kernel_gap)", alone(pre))
    line("GPU-alone replay: all 72", alone(rows))
    line("wall (measure()'s replay): odd points (held out of graph_launch_per_node)", wall(rows[1::2]))
    line("wall (measure()'s replay): all 72", wall(rows))
    line("host launch: odd points, step.host_time_s / host_launch_s",
         [s["host_time_s"] / p["host_launch_s"] - 1 for p, s in rows[1::2]])


if __name__ == "__main__":
    sys.path.insert(0, "validation/scripts/production")
    main(sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] else None,
         sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel")
