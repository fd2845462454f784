#!/usr/bin/env python3
"""The `uneven_dim` factor of the calibration's flash2 block (lead, 2026-12-04, twelfth session; issue 10).

FlashAttention-2 runs a head dim short of a compiled one (48, 80, 112, 160, 224) in the next compiled kernel (64, 96,
128, 192, 256) instantiated with Is_even_K false: its K / V / Q loads are predicated column chunk by column chunk and
the padded columns cleared in shared memory, then every MMA runs over the padded dim. Nsight Compute
(validation/results/h200-oddsplit/ncu.csv) sees the split kernel at head dim 80 execute 14 % more warp instructions
than at 96 (18.67 M against 16.39 M, as many as at 128) and at 160 17 % more than at 192, with DRAM at 54-58 % of its
peak against 70-76 %: the short dim's call is the padded kernel's walk plus the predication, not its own bytes.

The factor is read straight off pairs timed on the same lease at the same shape (one query token, the split kernel):
measured(short dim) / measured(its compiled dim). Its median over h200-oddsplit's pairs is the calibration's number;
nothing else is fitted here, and no other set is read (h200-headdims' and h200-heldout30's short dims stay held out).

    python3 validation/scripts/production/fit_flash2_uneven.py [validation/results/h200-oddsplit/kernels.json]
"""
import json
import statistics
import sys

COMPILED = (32, 64, 96, 128, 192, 256)


def kernel_dim(d):
    return next(c for c in COMPILED if d <= c)


def main(path):
    cases = [c for c in json.load(open(path))["cases"] if c["implementation"] == "torch.sdpa.flash"]
    t = {(c["batch"], c["heads"], c["kv_heads"], c["kv_len"], c["head_dim"]): c["measured_s"] for c in cases}
    ratios = []
    for (b, h, kv, n, d), s in sorted(t.items()):
        k = kernel_dim(d)
        if k != d and (b, h, kv, n, k) in t:
            r = s / t[(b, h, kv, n, k)]
            ratios.append(r)
            print(f"b{b} h{h}/{kv} {n:>6} keys: head dim {d:>3} {s * 1e6:7.1f} us, its kernel's {k:>3} "
                  f"{t[(b, h, kv, n, k)] * 1e6:7.1f} us: x{r:.3f}")
    print(f"uneven_dim: {statistics.median(ratios):.3f} (median of {len(ratios)} pairs; "
          f"range {min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-oddsplit/kernels.json")
