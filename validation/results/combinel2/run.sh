#!/bin/bash
# combinel2 (planned 2026-12-06, twenty-fifth session), from the repository root, OUT set, on either lent card:
# FlashAttention-2's split-decode combine at fixed splits and rows, the K / V stepped past L2, each call timed as every set does and each kernel's
# device time from torch.profiler (validation/scripts/production/combinel2.py). About 1 min. The results go to
# validation/results/<card>-combinel2.
# The steps: validation/scripts/production/run_split_set.sh (shared by lonesplit, splitgap and combinel2).
exec bash validation/scripts/production/run_split_set.sh combinel2
