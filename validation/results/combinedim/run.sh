#!/bin/bash
# combinedim (planned 2026-12-06, twenty-fifth session), from the repository root, OUT set, on either lent card:
# FlashAttention-2's split-decode combine at head dims 64 and 256 after two-wave grids
# (validation/scripts/production/combinedim.py). About 1 min. The results go to validation/results/<card>-combinedim.
# The steps: validation/scripts/production/run_split_set.sh.
exec bash validation/scripts/production/run_split_set.sh combinedim
