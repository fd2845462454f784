"""normwaves.py's kernel on a second lease and down to one row: eager F.rms_norm / F.layer_norm at 2560 and 4096
columns, 1-4400 rows (the wave edges at 1056 / 2112 / 3168 / 4224 rows and the flat part below them), run after
normwaves.py's own shapes in the same call (validation/results/h200-normwaves/run2.sh). Nothing fitted on it here.
"""
import normwaves

ROWS = (1, 8, 64, 256, 512, 800, 1056, 1100, 1600, 2112, 2200, 3168, 3300, 4224, 4400)
COLS = (2560, 4096)


def ops_cases():
    return normwaves.norm_cases(ROWS, COLS)
