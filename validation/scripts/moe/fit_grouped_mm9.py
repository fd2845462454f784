#!/usr/bin/env python3
"""Branch moe9: torch._grouped_mm's pingpong kernel (GroupMM.cu's 64 x 128 tile, 2 x 1 cluster)
counted per CTA tile of its cluster pairs, and grouped_mm_cost.cpp's pingpong pricing replayed on
every committed case. Nothing is fitted here: the keys are those in hardware/h200.calibration.yaml
(fit_grouped_mm.py's fits: floor / cta_rate / stream on h200-moe-sync's T = 1 and 64 cases,
full_pair_stream on h200-moe6's two 128-row gate_up cases); every other case is held out.

Usage: python3 validation/scripts/moe/fit_grouped_mm9.py [validation/results] [--table]

--table prints the mechanism's evidence: per case with its rows set per expert and 2 or more CTA
tiles an SM, the CTA tiles of its pairs (2 x ceil(r / 128) per expert and column tile, the idle
partner of a 1-64-row expert counted), the mean tiles an SM and the time per 64-deep K step of one
CTA tile ((measured - floor) / tiles an SM / (K / 64)).

Model (per expert of r rows: P = ceil(r / 128) pairs; the last pair full in the share
s = clamp((fill - 1/2) / (1/4), 0, 1); a = 1 if P >= 2 else s (the first pair's full share);
q = 1 - s if P >= 2 else 0 (a partial pair past the first); a router's rows take a and q over
Binomial(T, k / E), given at least one; tiles and waves as fit_grouped_mm.py counts them):
  memory = (1 - a) x the two terms (per-CTA K-loop + the card's stream, fit_grouped_mm.py)
         + a x bytes / full_pair_stream                 (the first pass of the weight, full pairs)
         + q x the weight's bytes / stream              (a partial further pair re-reads the slab)
  time = floor + max(memory, compute at the pingpong MMA share)
Full further pairs cost their MMAs only (the compute term).
"""
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_grouped_mm as old  # noqa: E402

SMS, PEAK = 132, 801.126e12
KEYS = dict(floor=12.5e-6, cta_rate=135e9, stream=3500e9, full=3760e9, ping=0.65, coop=0.97)
FIT = {("h200-moe6", "pair6_mixtral_gate_up_r128"), ("h200-moe6", "pair6_qwen3_gate_up_r128")}


def in_fit(c):
    """The keys' own fit cases (fit_grouped_mm.py): the three stream keys and the floor on
    h200-moe-sync's T = 1 and 64, the MMA shares on h200-moe5's Mixtral T = 2048 ones, the full-pair
    stream on h200-moe6's two 128-row gate_up cases."""
    return ((c["run"] == "h200-moe-sync" and c["tokens"] in (1, 64)) or (c["run"], c["name"]) in FIT
            or (c["run"] == "h200-moe5" and old.in_share_fit(c)))


def binom_pmf(t, p):
    mu, sd = t * p, math.sqrt(t * p * (1 - p))
    out = [(r, math.exp(math.lgamma(t + 1) - math.lgamma(r + 1) - math.lgamma(t - r + 1) + r * math.log(p)
                        + (t - r) * math.log1p(-p)))
           for r in range(max(1, math.floor(mu - 12 * sd)), min(t, math.ceil(mu + 12 * sd)) + 1)]
    s = sum(w for _, w in out)
    return [(r, w / s) for r, w in out]


def expert_pairs(r):
    """grouped_mm_cost.cpp's expert_pairs: (pairs, first pair full share, further partial pair)."""
    p = max(1, math.ceil(r / 128))
    s = min(1.0, max(0.0, ((r - 128 * (p - 1)) / 128 - 0.5) / 0.25))
    return (1, s, 0.0) if p == 1 else (p, 1.0, 1 - s)


def rows_of(c):
    """The case's rows per touched expert and its groups, or None for a router's (binomial) op."""
    rpe = c.get("rows_per_expert")
    if isinstance(rpe, list):
        return [r for r in rpe if r > 0], c.get("groups") or c["experts"]
    if isinstance(rpe, int):
        return [rpe] * c["experts_touched"], c["experts"]
    if c.get("routing") == "balanced":
        return [c["tokens"] * c["top_k"] // c["experts"]] * c["experts"], c.get("groups", c["experts"])
    return None, None


def as_op(c):
    """The case as a step's op sees it: a router's cases by their binomial rows (h200-moe5's
    uniform / skewed routers, h200-moe7's binomial cases: E x 128 tokens, top-1 of E)."""
    if c["run"] == "h200-moe5" and c["routing"] in ("uniform", "skewed"):
        return {k: v for k, v in c.items() if k != "rows_per_expert"}
    if c["run"] == "h200-moe7" and "binom" in c["name"]:
        e = 8 if "mixtral" in c["name"] else 128
        return dict({k: v for k, v in c.items() if k != "rows_per_expert"}, experts=e, top_k=1, tokens=e * 128, groups=e)
    return c


def predict(c, k=KEYS):
    """grouped_mm_cost.cpp (branch moe9) for the pingpong kernel; the cooperative kernel as before."""
    n, kd = c["n"], c["k"]
    rows, groups = rows_of(c)
    if rows is not None:
        if sum(rows) / groups > 128 and n > 128:  # GroupMM.cu's cooperative kernel: unchanged
            return None if len(set(rows)) > 1 else old_predict(c)
        g, routed = len(rows), sum(rows)
        terms = [expert_pairs(r) for r in rows]
        a, q = (sum(t[i] for t in terms) / g for i in (1, 2))
        row_tiles = sum(old.pair_tiles(r, 64) for r in rows) / g
    else:
        e, top, t = c["experts"], c["top_k"], c["tokens"]
        if t * top / c.get("groups", e) > 128 and n > 128:
            return old_predict(c)
        g, routed = old.touched(e, top, t), t * top
        pmf = binom_pmf(t, top / e)
        a, q = (sum(w * expert_pairs(r)[i] for r, w in pmf) for i in (1, 2))
        row_tiles = sum(w * old.pair_tiles(r, 64) for r, w in pmf)
    gi = math.ceil(g - 1e-9)
    tiles = math.ceil(gi * row_tiles - 1e-9) * math.ceil(n / 128)
    ctas = min(tiles, SMS)
    waves = math.ceil(tiles / ctas)
    op_bytes = 2 * (g * n * kd + routed * (kd + n))
    m = routed / gi
    tile_bytes = op_bytes / tiles
    fetched = tile_bytes * max(1, row_tiles) / min(2, max(1, row_tiles))
    two_terms = waves * (fetched / k["cta_rate"] + tile_bytes * ctas / k["stream"])
    weight_share = n * kd / (n * kd + m * (kd + n))
    mem = (1 - a) * two_terms + a * op_bytes / k["full"] + op_bytes * weight_share * q / k["stream"]
    comp = waves * 2 * min(math.ceil(m), 64) * 128 * kd / (PEAK * k["ping"] / SMS)
    return k["floor"] + max(mem, comp)


def load(results):
    out = []
    for run in ("h200-moe", "h200-moe-sync", "h200-moe-fused"):
        for c in json.load(open(os.path.join(results, run, "hf.json"))).get("kernel_cases", []):
            if c["kernel"] == "grouped_gemm" and c["ok"]:
                out.append(dict(c, run=run, grp="decode, T=1-256, routing sweep"))
    for c in json.load(open(os.path.join(results, "h200-moe5", "hf.json")))["grouped_cases"]:
        if c.get("ok"):
            out.append(dict(c, run="h200-moe5", grp="h200-moe5 " + c["routing"] + (" forced" if c.get("forced_pingpong") else "")))
    for c in json.load(open(os.path.join(results, "h200-moe6", "hf.json")))["pair_cases"]:
        if c.get("ok"):
            out.append(dict(c, run="h200-moe6", grp="h200-moe6 rows sweep"))
    for c in json.load(open(os.path.join(results, "h200-moe7", "hf.json")))["pair_cases"]:
        if c.get("ok"):
            nm = c["name"]
            kind = ("binomial" if "binom" in nm else "r160 (two pairs)" if "r160" in nm
                    else "mixtures" if ("_mix128" in nm or "spread" in nm) else "equal rows")
            out.append(dict(c, run="h200-moe7", grp="h200-moe7 " + kind))
    path = os.path.join(results, "h200-moe9", "hf.json")
    if os.path.exists(path):  # this branch's K sweep of the two gate_up shapes (run_moe9.py)
        for c in json.load(open(path))["pair_cases"]:
            if c.get("ok"):
                out.append(dict(c, run="h200-moe9", grp="h200-moe9 K sweep"))
    path = os.path.join(results, "h200-moe11", "hf.json")
    if os.path.exists(path):  # branch moe11: N and the expert count at K 2048 (run_moe11.py)
        for c in json.load(open(path))["pair_cases"]:
            if c.get("ok"):
                out.append(dict(c, run="h200-moe11", grp="h200-moe11 N / expert sweep"))
    path = os.path.join(results, "h200-moe12", "hf.json")
    if os.path.exists(path):  # branch moe12: row stride, span and the partner's rows (run_moe12.py)
        for c in json.load(open(path))["pair_cases"]:
            if c.get("ok"):
                out.append(dict(c, run="h200-moe12", grp="h200-moe12 stride / partner"))
    return out


def old_predict(c):
    """The model before moe9 (fit_grouped_mm.py), where it can price the case (equal rows or a router)."""
    if c["run"] == "h200-moe5":  # its own construction (balanced, forced, a router's binomial)
        c = {k: v for k, v in c.items() if k != "rows_per_expert"}
    elif isinstance(c.get("rows_per_expert"), list):  # h200-moe7's cases: equal rows only
        rows = [r for r in c["rows_per_expert"] if r > 0]
        if len(set(rows)) > 1 or rows[0] > 128:
            return None
        c = dict(c, rows_per_expert=rows[0], experts_touched=len(rows))
    k = KEYS
    return old.predict(c, k["floor"], k["cta_rate"], k["stream"], k["ping"], k["coop"], k["full"])


def table(cases):
    for c in cases:
        rows, groups = rows_of(c)
        if rows is None or (sum(rows) / groups > 128 and c["n"] > 128):
            continue
        tiles = sum(2 * math.ceil(r / 128) for r in rows) * math.ceil(c["n"] / 128)
        per_sm = tiles / SMS  # the mean over the SMs (cases of 2 or more, the card full)
        if per_sm < 2:
            continue
        kstep = (c["median_s"] - KEYS["floor"]) * 1e6 / per_sm / (c["k"] / 64)
        print(f"  {c['run']:13s} {c['name'][:52]:52s} N {c['n']:5d} K {c['k']:5d} rows {min(rows):4d}-{max(rows):4d} "
              f"CTA tiles {tiles:6d} ({per_sm:6.1f} an SM) {kstep:.3f} us a K step")


def main(results, show_table):
    cases = load(results)
    if show_table:
        table(cases)
    groups = {}
    for c in cases:
        new = predict(as_op(c))
        if new is None:
            continue
        o = old_predict(as_op(c))
        groups.setdefault(("fit " if in_fit(c) else "held out ") + c["grp"], []).append(
            (new / c["median_s"] - 1, None if o is None else o / c["median_s"] - 1, c["name"]))
    held_new, held_old = [], []
    for name, v in sorted(groups.items()):
        a = sorted(abs(x[0]) for x in v)
        b = sorted(abs(x[1]) for x in v if x[1] is not None)
        before = f"before {statistics.median(b):5.1%} / {b[-1]:5.1%}" if b else "before: not priced as one op"
        print(f"{name:52s} {len(v):3d} cases: median |error| {statistics.median(a):5.1%}, max {a[-1]:5.1%}, "
              f"signed median {statistics.median(x[0] for x in v):+5.1%}  ({before})")
        if not name.startswith("fit"):
            held_new += a
            held_old += [abs(x[1]) for x in v if x[1] is not None]
    for label, e in (("held out, all (moe9)", sorted(held_new)), ("held out, all (before; the cases it priced)", sorted(held_old))):
        print(f"{label}: {len(e)} cases, median {statistics.median(e):.1%}, p90 {e[round(0.9 * (len(e) - 1))]:.1%}, max {e[-1]:.1%}")
    if "--cases" in sys.argv:
        for name, v in sorted(groups.items()):
            for new, o, nm in v:
                print(f"  {name[:30]:30s} {nm[:58]:58s} {new:+6.1%}  before {'' if o is None else f'{o:+6.1%}'}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(args[0] if args else "validation/results", "--table" in sys.argv)
