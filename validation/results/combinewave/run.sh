#!/bin/bash
# combinewave (planned 2026-12-06, twenty-fifth session), from the repository root, OUT set, on either lent card:
# FlashAttention-2's split-decode combine after split grids of one to six waves, the K / V stepped at a fixed grid
# (validation/scripts/production/combinewave.py). About 1 min. The results go to validation/results/<card>-combinewave.
# The steps: validation/scripts/production/run_split_set.sh.
exec bash validation/scripts/production/run_split_set.sh combinewave
