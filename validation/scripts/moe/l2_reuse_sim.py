#!/usr/bin/env python3
"""A reuse simulation of vLLM's fused_moe grouped GEMM through an LRU L2, against the DRAM bytes Nsight Compute read
(fixed routing: h100-driftncu, h100-groupncu, h100-groupncu2). A prototype for the re-read model the price lacks (h100-slabcheck,
h100-groupncu): nothing in the price uses it, nothing is fitted here; `sigma` and the L2's usable share are the two
knobs, set on the command line.

    python3 validation/scripts/moe/l2_reuse_sim.py [sigma] [usable L2 share] [--quick] [--routed]
    (--routed: the routed prefills of h200- / h100-prefillncu and h100-bigncu instead of the fixed-routing sets;
     --quick: up to 1024 picks an expert, or 4096 routed tokens)
    python3 validation/scripts/moe/l2_reuse_sim.py --predict 16,32 1024 [sigma] [usable]   # other group sizes

The mechanism simulated: the kernel's grid order (GROUP_SIZE_M row blocks, every column of a group before the next),
CTAs dispatched in that order into the card's resident slots as slots free, each walking its K steps at its own
speed (a Gaussian factor of spread `sigma` about 1: the SM it lands on, its neighbours), each K step loading one A
slice (its row block's BLOCK_M x BLOCK_K) and one weight slice (its expert's BLOCK_K x BLOCK_N) through an LRU cache
of the L2's usable bytes in slices, and its epilogue writing its output tile into the same cache (the L2 is
write-back: the output occupies it until evicted). A miss on a load is a DRAM read. The output is the DRAM bytes over the experts' weights,
as read_twoblock.py reports Nsight's.
"""
import heapq
import os
import random
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from read_twoblock import MODELS, ncu_cases, weight_bytes  # noqa: E402

RESULTS = os.path.join(HERE, "..", "..", "results")
BM = BN = 64
BK = 32
L2_BYTES = {"h100": 50 * 2 ** 20, "h200": 60 * 2 ** 20}
RESIDENT = 132 * 8  # 132 SMs x 8 CTAs of the 64 x 64 x 32 tile (Nsight, h200-moe6)
# MISS_PENALTY (environment, default 0): a K step's time grows by this share per slice it misses, so a CTA that reads
# from DRAM falls behind the ones that hit. Tried after h100-groupncu2: at 0.5-1.0 the followers catch up with the
# leader and the re-reads fall 3-8x below Nsight's (README there), so the kernel's CTAs do not pace themselves so.
MISS_PENALTY = float(os.environ.get("MISS_PENALTY", "0"))


def grid(num_m, num_n, group_m):
    """(row block, column) in launch order: vLLM's fused_moe_kernel pid -> (pid_m, pid_n)."""
    for pid in range(num_m * num_n):
        group = pid // (group_m * num_n)
        first = group * group_m
        size = min(num_m - first, group_m)
        yield first + (pid % (group_m * num_n)) % size, (pid % (group_m * num_n)) // size


def routed_rows(experts, top_k, tokens, seed=0):
    """Each expert's routed rows under uniform top-k routing (each token k distinct experts)."""
    rnd = random.Random(seed + 1)
    rows = [0] * experts
    for _ in range(tokens):
        for e in rnd.sample(range(experts), top_k):
            rows[e] += 1
    return rows


def simulate(rows, n, k, group_m, l2_bytes, sigma, seed=0):
    """DRAM slices read (A, weights); `rows`: each expert's routed rows, padded to BLOCK_M as vLLM's align pads them
    (a last block of r < BLOCK_M rows loads r + BLOCK_N tile rows a step and walks ahead of its partners by the partner
    lag's share, fused_moe_cost.cpp's kPartnerLeadShare)."""
    rnd = random.Random(seed)
    steps = k // BK
    capacity = int(l2_bytes // (BM * BK * 2))  # slices of 4 KiB (A and weight slices are the same size here)
    expert_of, real = [], []
    for e, r in enumerate(rows):
        for b in range(-(-r // BM)):
            expert_of.append(e)
            real.append(min(BM, r - b * BM))
    order = grid(len(expert_of), n // BN, group_m)
    cache = OrderedDict()
    misses = {"A": 0, "W": 0, "C": 0}
    running = []

    def load(key):
        if key in cache:
            cache.move_to_end(key)
            return 0
        misses[key[0]] += 1
        cache[key] = None
        if len(cache) > capacity:
            cache.popitem(last=False)
        return 1

    def dispatch(t):
        nxt = next(order, None)
        if nxt is not None:
            lead = 0.508 * (BM - real[nxt[0]]) / (BM + BN)
            heapq.heappush(running, (t, 0, nxt[0], nxt[1], max(0.2, rnd.gauss(1.0, sigma)) * (1 - lead)))

    for _ in range(RESIDENT):
        dispatch(0.0)
    while running:
        t, step, m, col, pace = heapq.heappop(running)
        missed = load(("A", m, step)) + load(("W", expert_of[m], col, step))
        dt = pace * (1 + MISS_PENALTY * missed)
        if step + 1 < steps:
            heapq.heappush(running, (t + dt, step + 1, m, col, pace))
        else:
            for half in range(BM * BN // (BM * BK)):  # the epilogue's output tile, written back through the L2
                load(("C", m, col, half))
            dispatch(t + dt)
    return misses["A"], misses["W"]


def measured():
    """(set, model, picks an expert, GEMM, GROUP_SIZE_M, DRAM read over the weights), fixed routing, H100
    (h100-groupncu2 ran after its predictions were committed)."""
    for folder, gm in (("h100-driftncu", 8), ("h100-groupncu/gm1", 1), ("h100-groupncu/gm8", 8),
                       ("h100-groupncu/gm64", 64), ("h100-groupncu2/gm2", 2), ("h100-groupncu2/gm16", 16),
                       ("h100-groupncu2/gm32", 32)):
        for c in ncu_cases(os.path.join(RESULTS, folder)):
            yield folder, c["model"], c["picks"], c["gemm"], gm, c["dram_read_bytes"] / weight_bytes(c["model"], c["gemm"])


def main(sigma, usable, quick):
    print(f"sigma {sigma}, usable L2 {usable:.2f} of 50 MiB (H100)\n")
    print("| set | model | picks an expert | GEMM | GROUP_SIZE_M | measured DRAM / weights | simulated | A | weights |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for folder, model, picks, gemm, gm, meas in measured():
        if quick and picks > 1024:
            continue
        E, _, d, inter = MODELS[model]
        n, k = (2 * inter, d) if gemm == "w13" else (d, inter)
        a, w = simulate([picks] * E, n, k, gm, usable * L2_BYTES["h100"], sigma)
        slice_bytes = BM * BK * 2
        sim = (a + w) * slice_bytes / weight_bytes(model, gemm)
        print(f"| {folder} | {model} | {picks} | {gemm} | {gm} | {meas:.2f}x | {sim:.2f}x | "
              f"{a * slice_bytes / weight_bytes(model, gemm):.2f}x | {w * slice_bytes / weight_bytes(model, gemm):.2f}x |",
              flush=True)


def main_routed(sigma, usable, quick):
    """The routed prefills Nsight read (h200- / h100-prefillncu, h100-bigncu's default config), each card's L2."""
    from l2_work_rate import SHAPES, cases  # noqa: E402
    print(f"sigma {sigma}, usable L2 {usable:.2f} of the card's\n")
    print("| set | model | tokens | GEMM | measured DRAM / weights | simulated | A | weights |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: |")
    for folder, routing, model, T, g, _, _, dram, _ in cases():
        if routing != "routed" or (quick and T > 4096):
            continue
        E, top_k, d, inter = SHAPES[model]
        n, k = (2 * inter, d) if g == "w13" else (d, inter)
        rows = routed_rows(E, top_k, T)
        weights = sum(1 for r in rows if r) * n * k * 2
        a, w = simulate(rows, n, k, 8, usable * L2_BYTES[folder[:4]], sigma)
        slice_bytes = BM * BK * 2
        print(f"| {folder} | {model} | {T} | {g} | {dram / weights:.2f}x | {(a + w) * slice_bytes / weights:.2f}x | "
              f"{a * slice_bytes / weights:.2f}x | {w * slice_bytes / weights:.2f}x |", flush=True)


def predict(sigma, usable, group_sizes, picks):
    """Mixtral-8x7B with fixed routing (`picks` an expert) under other GROUP_SIZE_M: the simulation's DRAM bytes over
    the weights, written down before a run measures them."""
    print(f"sigma {sigma}, usable L2 {usable:.2f} of 50 MiB (H100)\n")
    print("| GROUP_SIZE_M | picks an expert | GEMM | simulated DRAM / weights | A | weights |")
    print("| ---: | ---: | --- | ---: | ---: | ---: |")
    E, _, d, inter = MODELS["mixtral-8x7b"]
    for gm in group_sizes:
        for gemm in ("w13", "w2"):
            n, k = (2 * inter, d) if gemm == "w13" else (d, inter)
            a, w = simulate([picks] * E, n, k, gm, usable * L2_BYTES["h100"], sigma)
            wb = weight_bytes("mixtral-8x7b", gemm) / (BM * BK * 2)
            print(f"| {gm} | {picks} | {gemm} | {(a + w) / wb:.2f}x | {a / wb:.2f}x | {w / wb:.2f}x |", flush=True)


if __name__ == "__main__" and sys.argv[1:2] == ["--predict"]:
    # --predict GM,GM PICKS [sigma] [usable]
    predict(float(sys.argv[4]) if len(sys.argv) > 4 else 0.1, float(sys.argv[5]) if len(sys.argv) > 5 else 1.0,
            [int(g) for g in sys.argv[2].split(",")], int(sys.argv[3]))
elif __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    run = main_routed if "--routed" in sys.argv else main
    run(float(args[0]) if args else 0.1, float(args[1]) if len(args) > 1 else 1.0, "--quick" in sys.argv)
