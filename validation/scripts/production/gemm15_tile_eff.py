#!/usr/bin/env python3
"""nvjet's compute-bound tile efficiency, read off the committed kernel-only GEMMs (branch gemm15).

    python3 validation/scripts/production/gemm15_tile_eff.py ROWS.txt

ROWS.txt: gemm14_rows.py's output (PERFMODEL CALIBRATION; the fit / out column is fit_gemm.py's split).
For each bf16 torch.linear case at M >= 256 that cuBLASLt ran unsplit on an nvjet tile (weight rows x
tokens, from the kernel name), the grid of that tile gives ceil(CTAs / SMs) rounds of one tile per SM
(nvjet: one CTA an SM). The implied efficiency is the busiest SM's MMA work at the card's bf16 peak
over the measured time less the block's fixed cost (kernel_floor + fixed = 2.0 us):

    eff = rounds x 2 a b K / (peak / SMs) / (measured - 2.0 us)

Only tiles of at least 64 x 64 (cuBLASLt's narrower nvjet tiles, 64x8 to 64x48, run their K loop's
latency, which the block's walk prices: their implied efficiency is not the MMA's). Cases whose weight stream (N K 2 bytes at stream_efficiency x read rate) is over half the measured
time are left out (not compute-bound). The law the block uses is eff = min(1, reuse / knee) with
reuse = a b / (a + b) and knee 64 (gemm_tiling.cpp); the script fits the knee on the fit half
(least squares on log eff) and prints both halves' errors of the time this implies, knee 64 beside it.
"""
import math
import re
import statistics
import sys

SMS, PEAK, FIXED = 132, 801.126e12, 2.0e-6  # hardware/h200.calibration.yaml: gemm_peak.bf16; 0.509 + 1.5 us
STREAM = 0.86 * 4658.4e9


def cases(path):
    for line in open(path):
        m = re.match(r"(\S+)\s+(fit|out)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)x(\d+)_\d+x\d+_(\d+x\d+)(\s+splitK)?.*"
                     r"meas\s+([\d.]+)", line)
        if not m or m.group(9):
            continue
        M, N, K, a, b = (int(m.group(i)) for i in (3, 4, 5, 6, 7))
        meas = float(m.group(10)) * 1e-6
        if M < 256 or N * K * 2 / STREAM > 0.5 * meas or min(a, b) < 64:
            continue
        ctas = math.ceil(N / a) * math.ceil(M / b)
        rounds = math.ceil(ctas / SMS)
        work = rounds * 2 * a * b * K / (PEAK / SMS)
        yield dict(set=m.group(1), fit=m.group(2) == "fit", M=M, N=N, K=K, a=a, b=b, cluster=m.group(8),
                   ctas=ctas, meas=meas, work=work, eff=work / (meas - FIXED), reuse=a * b / (a + b))


def law(c, knee):
    return min(1.0, c["reuse"] / knee)


def errors(cs, knee):
    return [(c["work"] / law(c, knee) + FIXED) / c["meas"] - 1 for c in cs]


def stat(e):
    a = sorted(abs(x) for x in e)
    return f"{len(e):3d} cases: median {100 * statistics.median(a):5.2f} %, p90 {100 * a[min(len(a) - 1, int(0.9 * len(a)))]:5.2f} %, mean {100 * statistics.mean(e):+5.2f} %"


def main():
    cs = list(cases(sys.argv[1]))
    print("| set | half | M | N | K | nvjet tile | cluster | CTAs | measured us | implied eff | law (knee 64) |")
    print("| --- | --- | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: |")
    for c in sorted(cs, key=lambda c: (c["reuse"], c["M"], c["N"])):
        print(f"| {c['set']} | {'fit' if c['fit'] else 'out'} | {c['M']} | {c['N']} | {c['K']} | {c['a']}x{c['b']} | "
              f"{c['cluster']} | {c['ctas']} | {1e6 * c['meas']:.2f} | {c['eff']:.2f} | {law(c, 64):.2f} |")
    fit = [c for c in cs if c["fit"]]
    out = [c for c in cs if not c["fit"]]
    loss = lambda k: sum(math.log(c["eff"] / law(c, k)) ** 2 for c in fit)  # noqa: E731
    knee = min((k / 2 for k in range(60, 161)), key=loss)
    print(f"\nknee fitted on the fit half ({len(fit)} cases, least squares on log eff): {knee:.1f}")
    for k in sorted({64.0, knee}):
        print(f"knee {k:5.1f}: fit {stat(errors(fit, k))}; held out {stat(errors(out, k))}")
    small = [c for c in cs if c["reuse"] < 64]
    big = [c for c in cs if c["reuse"] >= 64]
    for name, g in (("tiles under reuse 64", small), ("tiles at reuse >= 64", big)):
        if g:
            print(f"{name}: implied eff median {statistics.median(c['eff'] for c in g):.2f} over {len(g)} cases "
                  f"(law {statistics.median(law(c, 64) for c in g):.2f})")


if __name__ == "__main__":
    main()
