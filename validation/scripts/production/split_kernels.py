"""Each call's kernels apart: the mean device time of every kernel a shape module's attention calls launch, from
torch.profiler's CUDA activity (eltwise3.kernel_times), to OUT/kernel_split.json. run_all.py --shapes SHAPES times the
same calls as every set does (CUDA-graph replay); this adds what each kernel of a call took, so that a split decode's
split kernel, its combine or merge, and the time outside both can be read apart (lonesplit and the sets after it,
twenty-third to twenty-sixth sessions). Nothing is fitted here.

    python3 split_kernels.py OUT SHAPES      # SHAPES: a shape module (lonesplit, splitgap, widegroup, x256check, ...)
"""
import json
import os
import sys


def main(out, shapes):
    """The calls of shape module `shapes` (its DECODE and BACKENDS) to OUT/kernel_split.json."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch

    import attention
    import harness
    from eltwise3 import kernel_times
    held = __import__(shapes)
    torch.cuda.set_device(0)
    harness.init()
    rows = []
    for case, make_set, fn, _check, set_bytes in attention.cases(held.BACKENDS, False, [], held.DECODE):
        rows.append({"name": case["name"], "kernel_times_us": kernel_times(fn, make_set, set_bytes)})
        print(case["name"], [(n[:40], round(t, 2)) for n, t in rows[-1]["kernel_times_us"]], flush=True)
    with open(os.path.join(out, "kernel_split.json"), "w") as f:
        json.dump({"schema_version": 1, "device": torch.cuda.get_device_name(0), "profiles": rows}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
