#!/usr/bin/env python3
"""fused_step.py's sweep with each point's replay also timed GPU-alone (lead, 2026-12-02).

Runs `fused_step.py --sweep` unchanged (same points, checks, measure() and result lines) with
fused_replay_probe.py's hook in its kernel-profile call, so every point's line also carries
back_to_back_s, spin_first_s (the replay behind a GPU spin: the GPU's time alone, the host's
cudaGraphLaunch hidden), host_launch_s, profiled_span_s, profiled_kernels_s and nodes
(validation/results/h200-fused-gaps says why).
    fused_step_alone.py --sweep --batches 1,8,32,64,128 --out DIR [fused_step.py's flags]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fused_replay_probe  # noqa: E402  (installs the hook)
import fused_step  # noqa: E402

_point = fused_step.measure_point


def _measure_point(*args, **kwargs):
    r = _point(*args, **kwargs)
    r.update(fused_replay_probe.EXTRA)
    fused_replay_probe.EXTRA.clear()
    return r


fused_step.measure_point = _measure_point

if __name__ == "__main__":
    fused_step.main()
