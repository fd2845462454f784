"""Eager F.rms_norm / F.layer_norm (ATen's vectorized_layer_norm_kernel, one CTA a row) across the wave edges
of the eager profile's row kernel (lib/src/cost/aten_kernel_cost.cpp, row_kernel: 8 CTAs an SM, 1056 rows a
wave on the H200, priced in whole waves). The hidden sets price 1100-1500 rows 28-64 % over (1100 x 2560,
1200 x 4608, 1500 x 5120: two whole waves where the kernel ran as if one and a share); this times the
step or ramp at 2560 and 4096 columns across 800-3300 rows (run_all.py --shapes normwaves --groups ops).
Nothing is fitted on it in the session that measured it.
"""
import heldout_common  # noqa: F401  (the shapes-module convention of run_all.py)

ROWS = (800, 1000, 1056, 1100, 1200, 1400, 1600, 1800, 2000, 2112, 2200, 2600, 3168, 3300)
COLS = (2560, 4096)


def norm_cases(row_counts, widths):
    """Eager F.rms_norm, then F.layer_norm, at every width and row count (normwaves2.py's too)."""
    import eager_ops as eo
    for kernel in ("rmsnorm", "layernorm"):
        for cols in widths:
            for rows in row_counts:
                yield eo._rowcol_case(kernel, rows, cols, "torch.eager")


def ops_cases():
    return norm_cases(ROWS, COLS)
