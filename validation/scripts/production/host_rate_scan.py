#!/usr/bin/env python3
"""Does one committed eager host rate price every lease? fit_host_clean.py's clean decode walls priced at several
host_per_aten values (seventeenth session, docs/accuracy-notes.md).

    python3 validation/scripts/production/host_rate_scan.py [perfmodel binary] [rate_us ...]

Prints, per rate, median / p90 |predicted / measured - 1| of the wall for: the fit's lease (h200-hostlease
walls-first), that lease's first call (each model's first point), the first clean point of 18 other sets (one lease
each), h200-heldout32 (another lease, every wall first), and all of them."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_host_clean as f  # noqa: E402

GROUPS = {
    "walls-first": lambda p: p[0].endswith("walls-first"),
    "hostlease call 1": lambda p: p[0] == "h200-hostlease",
    "18 other leases": lambda p: not p[0].startswith("h200-hostlease") and p[0] != "h200-heldout32",
    "heldout32": lambda p: p[0] == "h200-heldout32",
    "all": lambda p: True,
}


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(f.ROOT, "build/tools/perfmodel/perfmodel")
    rates = [float(r) for r in sys.argv[2:]] or [11.66, 13.0, 14.0, 15.0, 16.0]
    pts = f.clean_points()
    tmp = tempfile.mkdtemp()
    print("| host_per_aten | " + " | ".join(GROUPS) + " |")
    print("| ---: |" + " ---: |" * len(GROUPS))
    for r in rates:
        cal = f.calibration(r, tmp)
        errs = [(p, f.error(binary, cal, p[2])) for p in pts]
        cells = []
        for keep in GROUPS.values():
            n, m, q = f.summary([e for p, e in errs if keep(p)])
            cells.append(f"{100 * m:.1f} / {100 * q:.1f} % ({n})")
        print(f"| {r:.2f} us | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
