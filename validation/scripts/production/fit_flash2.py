#!/usr/bin/env python3
"""Branch flash2: PyTorch's FlashAttention-2 prefill kernel (SDPA's `flash` backend, pytorch_flash::flash_fwd_kernel,
the code flash-attn 2 ships and transformers' attn_implementation="flash_attention_2" runs) priced by its own tiles
(lib/src/kernels/attention_prefill_flash2.cpp). This fits the six numbers of the calibration's `flash2:` block
(profiles.eager) on the committed measurements and prints the held-out error.

The form (the C++ is the same; this mirror exists so that the fit needs no build):
- the tiles are FlashAttention-2's own, read off the measured kernel names (Flash_fwd_kernel_traits<d, bm, bn, warps>)
  at the kernel's head dim (the call's rounded up to 32 / 64 / 96 / 128 / 192 / 256): 128 x 128 to 64, 128 x 64 to
  128 (four warps), 128 x 64 with eight warps at 192, 64 x 64 at 256; at 255 registers a thread two four-warp CTAs
  share an SM (the grid runs on 2 x 132 slots, each at half the SM's pace), one eight-warp CTA fills it;
- a CTA (sequence, head, bm query rows) walks its key tiles (up to the diagonal when causal); a tile costs
  4 bm bn d / (mma_peak / SMs) + softmax x bm bn + smem_share x (the K and V tiles every warp reads from shared
  memory at 128 B a clock);
- the first ceil(bm / bn) key tiles of a causal CTA (one more where the sequence is not a multiple of the tiles) run
  FlashAttention-2's masking branch, which costs mask x bm bn on top (the measured time per tile rises with the
  share of such tiles: 3.0 us a slot at long sequences, 6.9 at 300 tokens, head dim 128);
- each CTA costs cta_fixed once, the call call_floor; CTAs start in index order on the first free slot;
- a grid of no more CTAs than SMs leaves each CTA alone on its SM, at lone_pace times its paired pace (a last round's
  CTAs alone too was tried, branch tailpace, and not kept: h200-tailpace);
- a head dim short of its kernel's costs UNEVEN_DIM times (fit_flash2_uneven.py, not fitted here);
- calls that ran two kernels (FlashAttention-2's split rule also splits small prefill grids: the split kernel and a
  combine; the C++ prices them) are left out of this mirror's fit.

Split: `perfmodel accuracy`'s own, by case index in each set's kernels.json: the even cases of every committed set are
fitted, the odd ones held out (h200-production and h200-heldout16..29; h200-production-repeat re-measures
h200-production's shapes and is left out); h200-lonecta, the probe of a grid's lone CTAs, is fitted whole;
h200-flash30, h200-headdims and h200-heldout30, measured after the first fit, are held out whole. The form was chosen looking at every set's residuals (the masking branch
and the head-dim-256 tiles' shared-memory reads showed in all of them); the numbers are fitted on the even half only.
Coordinate descent on median + 0.3 x p90 of |predicted / measured - 1|; no clock correction (the power cap's
slowdown of the longest calls is in the fitted peak, as for the other attention kernels).

    python3 validation/scripts/production/fit_flash2.py            # the fit and the held-out table
    python3 validation/scripts/production/fit_flash2.py --cases    # and every case
"""
import glob
import heapq
import json
import math
import os
import re
import statistics
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
SMS, CLOCK, SMEM_BYTES_PER_CLOCK = 132, 1.98e9, 128
AFTER_FIT = ("h200-flash30", "h200-headdims", "h200-heldout30", "h200-heldout31", "h200-heldout36")  # sets measured after the first fit: never fitted, reported whole
UNEVEN_DIM = 1.091  # a head dim short of its kernel's (fit_flash2_uneven.py), not fitted here
PROBES = ("h200-lonecta",)  # probes measured for this fit: every one-kernel call fitted (the lone CTAs' pace)
LARGE_GRID = 100000  # CTAs past which the schedule is taken as balanced (the C++ does the same)
KEYS = ["mma_peak", "softmax", "mask", "smem_share", "cta_fixed", "call_floor", "lone_pace"]
START = [698e12, 0.030e-9, 0.18e-9, 0.75, 0.65e-6, 3.5e-6, 1.0]


def kernel_dim(head_dim):
    """The head dim PyTorch's FlashAttention-2 kernel is compiled for: the call's, rounded up (h200-headdims)."""
    return next((d for d in (32, 64, 96, 128, 192) if head_dim <= d), 256)


def tiles_of(head_dim):
    """(rows, keys, warps, CTAs an SM) of flash_fwd_kernel at the kernel's head dim."""
    d = kernel_dim(head_dim)
    return (128, 128, 4, 2) if d <= 64 else (128, 64, 4, 2) if d <= 128 else (128, 64, 8, 1) if d <= 192 else (64, 64, 4, 2)


def cases():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "validation/results/*/kernels.json"))):
        name = os.path.basename(os.path.dirname(path))
        if name == "h200-production-repeat" or name.startswith("h100-"):
            continue  # a re-measure; and the H100's sets, which this H200 fit must not take in
        for index, c in enumerate(json.load(open(path)).get("cases", [])):
            if c.get("implementation") != "torch.sdpa.flash" or c.get("kernel") != "attention_prefill_fused":
                continue
            if not c.get("ok") or len(c.get("kernel_names", [])) != 1:
                continue
            traits = re.search(r"Flash_fwd_kernel_traits<(\d+), (\d+), (\d+), (\d+)", c["kernel_names"][0])
            if traits and tuple(int(x) for x in traits.groups()[1:]) != tiles_of(c["head_dim"])[:3]:
                sys.exit(f"{name} {c['name']}: tiles {traits.groups()} are not the ones this form assumes")
            c["set"], c["index"] = name, index
            out.append(c)
    return out


def ceil_div(a, b):
    return (a + b - 1) // b


def predict(c, p):
    mma_peak, softmax, mask, smem_share, cta_fixed, call_floor, lone_pace = p
    d = kernel_dim(c["head_dim"])
    bm, bn, warps, occupancy = tiles_of(d)
    q, kv = c["q_len"], c["kv_len"]
    even = q % bm == 0 and kv % bn == 0
    masking = (ceil_div(bm, bn) + (0 if even else 1)) if c["causal"] else 1
    el = bm * bn
    tile = 4 * el * d / (mma_peak / SMS) + softmax * el + smem_share * warps * 2 * bn * d * 2 / (SMEM_BYTES_PER_CLOCK * CLOCK)
    # no more CTAs than SMs: each alone on its SM, at lone_pace times its paired pace
    lone = occupancy > 1 and c["batch"] * c["heads"] * ceil_div(q, bm) <= SMS
    pace = occupancy / (lone_pace if lone else 1.0) * (UNEVEN_DIM if c["head_dim"] != d else 1.0)
    per_cta = []
    for i in range(ceil_div(q, bm)):
        n = ceil_div(kv, bn)
        if c["causal"]:
            n = min(n, (kv - q + min(q, (i + 1) * bm) - 1) // bn + 1)
        per_cta.append(pace * (cta_fixed + n * tile + min(n, masking) * mask * el))
    groups, slots = c["batch"] * c["heads"], SMS * occupancy
    if groups * len(per_cta) > LARGE_GRID:
        return call_floor + sum(per_cta) * groups / slots + max(per_cta) / 2
    free = [0.0] * slots
    end = 0.0
    for _ in range(groups):
        for t in per_cta:
            done = heapq.heappop(free) + t
            heapq.heappush(free, done)
            end = max(end, done)
    return call_floor + end


def errors(cs, p):
    return [predict(c, p) / c["measured_s"] - 1 for c in cs]


def summary(errs):
    e = sorted(abs(x) for x in errs)
    return statistics.median(e), e[int(0.9 * (len(e) - 1))]


def score(cs, p):
    med, p90 = summary(errors(cs, p))
    return med + 0.3 * p90


def fit(cs):
    p, best, step = list(START), score(cs, START), 1.2
    for _ in range(6):
        for j in range(len(p)):
            for direction in (1, -1):
                while True:
                    trial = list(p)
                    trial[j] = p[j] * step ** direction
                    if KEYS[j] == "lone_pace":
                        trial[j] = min(2.0, max(1.0, trial[j]))
                    s = score(cs, trial)
                    if s >= best - 1e-6:
                        break
                    p, best = trial, s
        step = 1 + (step - 1) / 2
    return p


def main():
    cs = cases()
    fitted = [c for c in cs if c["set"] in PROBES or (c["set"] not in AFTER_FIT and c["index"] % 2 == 0)]
    held = [c for c in cs if c not in fitted]
    p = fit(fitted)
    # lone_pace touches only the grids of no more CTAs than SMs, too few for the median / p90 score to see: it is the
    # geometric mean, over those fitted calls, of their time beyond the call floor at the paired pace over the measured
    lone = [c for c in fitted if c["batch"] * c["heads"] * ceil_div(c["q_len"], tiles_of(c["head_dim"])[0]) <= SMS]
    paired = p[:-1] + [1.0]
    ratios = [(predict(c, paired) - p[5]) / (c["measured_s"] - p[5]) for c in lone]
    p[-1] = min(2.0, max(1.0, math.exp(sum(math.log(x) for x in ratios) / len(ratios)))) if ratios else 1.0
    print(f"lone_pace from {len(lone)} calls: " + ", ".join(f"{c['set']} {c['name']} {x:.2f}" for c, x in zip(lone, ratios)))
    print("flash2:   # fit_flash2.py")
    units = {"mma_peak": (1e12, "TFLOP/s"), "softmax": (1e-9, "ns"), "mask": (1e-9, "ns"), "smem_share": (1, ""),
             "cta_fixed": (1e-6, "us"), "call_floor": (1e-6, "us"), "lone_pace": (1, "")}
    for k, v in zip(KEYS, p):
        scale, unit = units[k]
        print(f"  {k}: {v / scale:.4g} {unit}".rstrip())
    print(f"\n| cases | n | median | p90 |\n| --- | ---: | ---: | ---: |")
    for label, group in (("fitted", fitted), ("held out", held)):
        med, p90 = summary(errors(group, p))
        print(f"| {label} | {len(group)} | {100 * med:.1f} % | {100 * p90:.1f} % |")
    for s in sorted({c["set"] for c in held}):
        group = [c for c in held if c["set"] == s]
        med, p90 = summary(errors(group, p))
        print(f"| {s} (held out) | {len(group)} | {100 * med:.1f} % | {100 * p90:.1f} % |")
    if "--cases" in sys.argv:
        for c in sorted(cs, key=lambda c: predict(c, p) / c["measured_s"]):
            print(f"{c['set']:16} {c['name']:52} {predict(c, p) * 1e6:9.1f} {c['measured_s'] * 1e6:9.1f} "
                  f"{predict(c, p) / c['measured_s'] - 1:+.3f}")


if __name__ == "__main__":
    main()
