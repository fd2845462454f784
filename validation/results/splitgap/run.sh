#!/bin/bash
# splitgap (planned 2026-12-06, twenty-fifth session), from the repository root, OUT set, on either lent card:
# FlashAttention-2's split decode on grids of 96-1248 CTAs, each call timed as every set does and each kernel's
# device time from torch.profiler (validation/scripts/production/splitgap.py). About 1 min. The results go to
# validation/results/<card>-splitgap.
# The steps: validation/scripts/production/run_split_set.sh (shared by lonesplit, splitgap and combinel2).
exec bash validation/scripts/production/run_split_set.sh splitgap
