#!/usr/bin/env python3
"""Branch softmaxocc's comparison: every committed kernel suite's eager torch.softmax call (the eager profile's
torch.eager calls) priced with the default calibration and with one lacking the two block-softmax IPC keys (the
chain alone, as before the branch): median / p90 of |predicted / measured - 1|, all calls and those over 2048
columns at more rows than SMs, and each of the latter.

    python3 validation/scripts/production/softmax_compare.py [perfmodel]
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_builds  # noqa: E402

CAL = "hardware/h200.calibration.yaml"


def main(binary):
    without = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    without.write("".join(l for l in open(CAL) if not re.match(r"\s+softmax_block_(lone_)?ipc:", l)))
    without.close()
    old, new = compare_builds.collect((binary, without.name), (binary, CAL), "eager", "torch.eager", ("softmax_fused",))
    os.unlink(without.name)

    def shape(k):
        m = re.search(r"_(\d+)x(\d+)$", k[1])
        return (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    block = [k for k in old if shape(k)[1] > 2048 and shape(k)[0] > 132]
    names = ("before", "softmaxocc")
    print("every eager softmax call", compare_builds.stats(old, new, list(old), names))
    print("block kernels at more rows than SMs", compare_builds.stats(old, new, block, names))
    for k in sorted(block, key=shape):
        print(f"  {k[0].split('/')[2]:24s} {k[1]:40s} {100 * old[k]:+6.1f} -> {100 * new[k]:+6.1f} %")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel")
