#!/usr/bin/env python3
"""Device run of the `eltwise13` task (issue 10): Inductor's looped layer_norm with the row mask
only (rows not a multiple of 4096, columns a multiple of 2048 above 2048), and two with both masks.

    python3 validation/scripts/production/eltwise13.py OUT_DIR [--budget S]     # time (harness.py)
    ncu ... python3 validation/scripts/production/eltwise13.py OUT_DIR --ncu    # counters, one launch a shape

eltwise12.py's method and code (harness timing; Nsight Compute smsp__inst_executed.sum, one launch a
shape, caches flushed), on other shapes. Hypothesis, stated before the call: the row-mask-only
kernel's warp instructions a row are a fixed part plus a part a 2048-column block, as the unmasked
kernel's are (2707 + 1088 a block, eltwise12), with larger terms (6144 x 14336 counted 13683 at 7
blocks). The fit takes half the row-mask-only counts; the other counts and every time are held out.
"""
import os
import sys

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/eltwise13_inductor")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eltwise12  # noqa: E402

# Row mask only (rows % 4096 != 0, cols % 2048 == 0): blocks 3..9; then both masks.
eltwise12.SHAPES = [(6144, 14336), (3072, 8192), (5000, 12288), (1536, 18432), (6144, 6144), (2000, 10240),
                    (6144, 11008), (3072, 13000)]

if __name__ == "__main__":
    eltwise12.main()
