"""Eager F.rms_norm / F.layer_norm at widths no committed set holds, from tens of rows to 30000 (the wave edges at
1056 / 2112 rows and the many-row regime): timed by harness.py before branch normissue's law is written, in the
same call as its Nsight counts (validation/results/h200-normissue/run.sh). Nothing is fitted on it: the law's only
number comes from Nsight's issue rate.
"""
import normwaves

ROWS = {640: (300, 1500, 9000, 30000), 1280: (90, 1300, 4500, 20000), 1792: (1200, 1900, 6500, 12000),
        2816: (20, 1700, 2400, 8000), 3328: (500, 1150, 3000, 10000), 4352: (64, 1400, 2000, 5000),
        5632: (1000, 1800, 3500, 7000), 7680: (30, 1250, 2600, 6000), 10240: (200, 1600, 3000, 5000),
        18432: (10, 900, 1700, 3000)}


def ops_cases():
    for cols, rows in ROWS.items():
        yield from normwaves.norm_cases(rows, (cols,))
