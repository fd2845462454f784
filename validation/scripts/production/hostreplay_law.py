#!/usr/bin/env python3
"""Branch hostreplay: does host-before-replay = a + b x graph inputs carry across leases?

    python3 validation/scripts/production/hostreplay_law.py

Points: hostreplay_points.py (four sets, four leases). Fit halves (the sets' existing fit sides):
h200-compiled steps 0, 2, 4, 6 (graph_call_host's fit; host estimated as device_s - kernel_s - 0.416 us x
kernels), h200-host-probe's 4 compiled points (graph_kernel_gap's fit), h200-chost14 run2's even points by
inputs (chost14_law.py's fit). Held out: h200-compiled steps 1, 3, 5, run2's odd points, all of
h200-compiled2. a, b by least absolute log error (grid: a 5-700 us by 5, b 0-8 us by 0.05); the flat
value by the median of the same points. Prints median / max |pred / meas - 1| of the host time itself.
1. The per-stage slopes on run2's one lease (which stage grows with the inputs).
"""
import math
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostreplay_points import points  # noqa: E402


def fit_l1(S):
    best = None
    for a in range(5, 700, 5):
        for b100 in range(0, 800, 5):
            b = b100 / 100
            c = sum(abs(math.log((a + b * p["inputs"]) / p["host"])) for p in S)
            if best is None or c < best[0]:
                best = (c, a, b)
    return best[1], best[2]


def stats(f, S):
    e = sorted(abs(f(p) / p["host"] - 1) for p in S)
    return f"{100 * st.median(e):5.1f} / {100 * e[-1]:5.1f} %"


def main():
    P = points()
    run2 = sorted([p for p in P if p["set"] == "chost14-run2"], key=lambda p: p["inputs"])
    for i, p in enumerate(run2):
        p["fit"] = i % 2 == 0
    for p in P:
        if p["set"] == "compiled(est)":
            p["fit"] = p["step"] % 2 == 0
        elif p["set"] == "host-probe":
            p["fit"] = True
        elif p["set"] == "compiled2":
            p["fit"] = False
    fit = [p for p in P if p["fit"]]
    held = {"h200-compiled 1,3,5": [p for p in P if not p["fit"] and p["set"] == "compiled(est)"],
            "chost14-run2 odd": [p for p in P if not p["fit"] and p["set"] == "chost14-run2"],
            "h200-compiled2 (9)": [p for p in P if p["set"] == "compiled2"],
            "h200-compiled2 first shapes (6)": [p for p in P if p["set"] == "compiled2" and p["order"] == 0]}
    sides = {"all fit halves": fit,
             "h200-compiled even (graph_call_host's)": [p for p in fit if p["set"] == "compiled(est)"],
             "h200-host-probe + h200-compiled even": [p for p in fit if p["set"] != "chost14-run2"],
             "chost14-run2 even (one lease)": [p for p in fit if p["set"] == "chost14-run2"]}
    print("held-out host before the replay, median / max |pred / meas - 1|:")
    print(f"  {'flat 264.2 us (the opt-in calibration)':52s} " +
          "  ".join(f"{k}: {stats(lambda p: 264.2, S)}" for k, S in held.items()))
    for name, S in sides.items():
        a, b = fit_l1(S)
        flat = math.exp(st.median([math.log(p["host"]) for p in S]))
        print(f"  {name} ({len(S)} pts): a {a} us + b {b:.2f} us x inputs; flat {flat:.0f} us")
        print("      law:  " + "  ".join(f"{k}: {stats(lambda p: a + b * p['inputs'], H)}" for k, H in held.items()))
        print("      flat: " + "  ".join(f"{k}: {stats(lambda p: flat, H)}" for k, H in held.items()))
    # Second shapes of a process against its first (the same graph inputs, one more cache entry).
    print("\nsecond compiled shape of a process / its first (same inputs):")
    firsts = {(p["set"], p["model"], p["L"]): p for p in P if p["order"] == 0}
    for p in P:
        if p["order"] == 1 and (p["set"], p["model"], p["L"]) in firsts:
            f = firsts[(p["set"], p["model"], p["L"])]
            print(f"  {p['set']:11s} {p['model']:12s} L{p['L']:<3d} b{f['b']} -> b{p['b']}: {f['host']:.0f} -> {p['host']:.0f} us (x{p['host'] / f['host']:.2f})")


if __name__ == "__main__":
    main()
