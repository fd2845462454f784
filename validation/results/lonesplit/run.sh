#!/bin/bash
# lonesplit (lead, planned 2026-12-05, twenty-third session), from the repository root, OUT set, on either lent card:
# FlashAttention-2's split-KV decode on grids alone on their SMs, each call timed as every set does and each kernel's
# device time from torch.profiler (validation/scripts/production/split_kernels.py). About 1 min. The results go to
# validation/results/<card>-lonesplit.
# The steps: validation/scripts/production/run_split_set.sh (shared by lonesplit, splitgap and combinel2).
exec bash validation/scripts/production/run_split_set.sh lonesplit
