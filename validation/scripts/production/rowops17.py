#!/usr/bin/env python3
"""Device run of the `rowops17` task (issue 10): Inductor's looped layer_norm with both masks (rows not a
multiple of 4096, columns not a multiple of 2048) past 7 blocks, and the compiled tables' remaining misses.

    python3 validation/scripts/production/rowops17.py OUT_DIR [--budget S]     # time (harness.py, as eltwise12.py / eltwise13.py)
    ncu ... python3 validation/scripts/production/rowops17.py OUT_DIR --ncu    # counters, one launch a shape (the timed run's cache)

Hypothesis, stated before the call: h200-eltwise4's 1536 x 18944 (10 blocks, both masks) is priced -19 %
because its kernel issues more warp instructions a padded element than the both-mask reference (1.188 at
6 blocks, 1.142 at 7: h200-eltwise13), as the row-mask-only kernel does past 7 blocks (1.21 at 9 blocks
against its 3-7-block line's 0.89); the time then follows the count. The block sweep at 1536 rows (7, 8, 9,
10 blocks, both masks) says where the count jumps; 4000 x 4608 (-19 %), 1000 x 3072 (-20 %; both masks,
2-3 blocks), 1500 x 10240 (-22 %, row mask only) and 3072 x 7168 (+1.4 % with the walk) are counted too.
Registers a thread and the occupancy limit come with ncu's launch statistics. Nothing here is fitted on
unless the README says so.
"""
import os
import sys

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/rowops17_inductor")
sys.path.insert(0, os.path.join(os.getcwd(), "validation", "scripts", "production"))
import eltwise12  # noqa: E402

eltwise12.SHAPES = [(1536, 18944), (1536, 14000), (1536, 16000), (1536, 17000), (4000, 4608), (1000, 3072),
                    (3072, 7168), (1500, 10240)]

if __name__ == "__main__":
    eltwise12.main()
