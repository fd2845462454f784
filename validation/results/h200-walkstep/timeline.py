#!/usr/bin/env python3
"""Per-SM timelines of the stamped layer_norm kernel (walkstep.py's run.json): each CTA's SM, %clock64 at its
start and after its store, %globaltimer the same. For each case and stamped launch (the median-span one of
three): the kernel's span (globaltimer), the SM clock (cycles / ns over the CTAs), CTAs an SM, the busiest
SM's span, how long its CTAs overlap 4 / 3 / 2 / 1 / 0 at a time, the last CTA's start and its time alone,
the typical CTA duration at 4 resident, and the spread of the SMs' end times.

    python3 validation/results/h200-walkstep/timeline.py validation/results/h200-walkstep/run.json.gz
"""
import gzip
import json
import statistics as st
import sys
from collections import defaultdict


def analyse(rows, cols, stamps):
    by_sm = defaultdict(list)
    for sm, c0, c1, g0, g1 in stamps:
        by_sm[sm].append((c0, c1, g0, g1))
    # SM clock: cycles over ns of each CTA (globaltimer ticks coarsely: long CTAs only)
    ratios = [(c1 - c0) / (g1 - g0) for v in by_sm.values() for c0, c1, g0, g1 in v if g1 - g0 > 2000]
    ghz = st.median(ratios) if ratios else 1.98
    g_start = min(s[3] for s in stamps)
    g_end = max(s[4] for s in stamps)
    out = {"rows": rows, "cols": cols, "ghz": ghz, "kernel_us": (g_end - g_start) / 1e3, "sms": len(by_sm)}
    spans, per = [], []
    for sm, v in by_sm.items():
        t0 = min(c0 for c0, *_ in v)
        ev = sorted(v)
        span = (max(c1 for _, c1, *_ in v) - t0) / ghz / 1e3
        spans.append((span, sm, len(v)))
        # time at k CTAs resident
        pts = sorted([(c0, 1) for c0, *_ in v] + [(c1, -1) for _, c1, *_ in v])
        at = defaultdict(float)
        k, last = 0, pts[0][0]
        for t, d in pts:
            at[k] += (t - last) / ghz / 1e3
            k += d
            last = t
        durs = [(c1 - c0) / ghz / 1e3 for c0, c1, *_ in ev]
        last_cta = max(ev, key=lambda e: e[0])
        ends = sorted(c1 for _, c1, *_ in ev)
        alone = (ends[-1] - ends[-2]) / ghz / 1e3 if len(ends) > 1 else durs[0]
        first_ends = (ends[0] - t0) / ghz / 1e3
        per.append({"sm": sm, "n": len(v), "span": span, "at": dict(at), "dur_med": st.median(durs),
                    "dur_first": durs[0], "dur_last": (last_cta[1] - last_cta[0]) / ghz / 1e3,
                    "last_start": (last_cta[0] - t0) / ghz / 1e3, "alone": alone, "first_end": first_ends,
                    "start_us": (min(g0 for *_, g0, g1 in v) - g_start) / 1e3,
                    "end_us": (max(g1 for *_, g0, g1 in v) - g_start) / 1e3})
    per.sort(key=lambda p: -p["span"])
    out["per_sm"] = per
    return out


def main():
    d = json.load(gzip.open(sys.argv[1]))
    print(f"meta {d['meta']}")
    print(f"{'rows':>5s} {'cols':>6s} {'blk':>3s} {'reg':>3s} {'plain':>7s} {'stamp':>7s} {'kern':>7s} {'GHz':>5s} "
          f"{'n':>3s} {'span':>6s} {'t@4':>6s} {'t@3':>5s} {'t@2':>5s} {'t@1':>5s} {'dur4':>6s} {'dur1st':>6s} "
          f"{'durLast':>7s} {'lastSt':>6s} {'alone':>5s} {'1stEnd':>6s} {'endSpread':>9s} {'nmax':>4s}")
    for c in d["cases"]:
        if "stamps" not in c:
            print(c["rows"], c["cols"], "no stamps", c.get("error", "")[-300:])
            continue
        runs = [analyse(c["rows"], c["cols"], s) for s in c["stamps"]]
        runs.sort(key=lambda r: r["kernel_us"])
        r = runs[len(runs) // 2]
        nmax = max(p["n"] for p in r["per_sm"])
        busy = [p for p in r["per_sm"] if p["n"] == nmax]
        b = busy[0]  # the longest span among the SMs with the most CTAs
        ends = [p["end_us"] for p in r["per_sm"]]
        print(f"{c['rows']:5d} {c['cols']:6d} {c['blocks']:3d} {c.get('n_regs', 0):3d} {c['us_plain']:7.2f} "
              f"{c['us_stamped']:7.2f} {r['kernel_us']:7.2f} {r['ghz']:5.2f} {b['n']:3d} {b['span']:6.2f} "
              f"{b['at'].get(4, 0):6.2f} {b['at'].get(3, 0):5.2f} {b['at'].get(2, 0):5.2f} {b['at'].get(1, 0):5.2f} "
              f"{st.median(p['dur_med'] for p in busy):6.2f} {b['dur_first']:6.2f} {b['dur_last']:7.2f} "
              f"{b['last_start']:6.2f} {b['alone']:5.2f} {b['first_end']:6.2f} {max(ends) - min(ends):9.2f} {nmax:4d}")


if __name__ == "__main__":
    main()
