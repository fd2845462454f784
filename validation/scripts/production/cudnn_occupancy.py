#!/usr/bin/env python3
"""How many of cuDNN's decode CTAs an SM holds (issue 10, branch decodeocc): a CTA-count sweep.

The resident rule (lib/src/kernels/attention_decode_cudnn.cpp) counts the kernel's CTAs an SM holds
from its shared memory alone: 3 at head dim 128, 6 at 64, 1 at 256. Across the committed sets the
288-320-CTA calls at head dim 128 run 9-25 % slower than priced and 400 CTAs 8-21 % faster: what a
limit of 2 an SM (264 slots: 288 is a full wave and a 24-CTA tail) would give, not 3 (396 slots).
This times the kernel alone at one CTA count after another, fine enough to see where the steps sit,
and ncu_cudnn_decode.py reads the kernel's registers and occupancy limits. Nothing is fitted here.

Usage: python3 validation/scripts/production/cudnn_occupancy.py OUT [--budget S] [--sweep occupancy|tiles|knee|split]
Writes OUT/kernels.json (the backend's result format, read by `perfmodel accuracy`).
"""
import argparse
import datetime
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import attention  # noqa: E402
import harness  # noqa: E402
from decode_monotone import save  # noqa: E402

# (heads, KV heads, head dim, keys, batches): one CTA a (sequence, KV head), the GQA group within 16.
SWEEPS = [
    (32, 8, 128, 2048, range(16, 101)),       # 128-800 CTAs in steps of 8
    (32, 8, 128, 512, range(16, 101, 2)),     # short walks: the same steps, 16 apart
    (16, 4, 64, 2048, range(32, 301, 6)),     # 128-1200 CTAs in steps of 24
    (8, 4, 256, 2048, range(16, 101, 3)),     # 64-400 CTAs in steps of 12
]
# --sweep tiles (branch wholetiles' check, measured after the change): walks of whole and partial 128-key tiles
# at grids past the SM count, where a lone walk bounds each wave.
TILE_KEYS = (130, 200, 256, 300, 384, 420, 520, 640, 700)
TILES = [(16, 8, 256, keys, (20, 60)) for keys in TILE_KEYS] + [(32, 8, 128, keys, (40, 100)) for keys in TILE_KEYS] + \
        [(16, 4, 64, keys, (150,)) for keys in TILE_KEYS]

# --sweep knee (branch decodeknee's check, prepared and committed before its run; nothing fitted on it): where
# the CTAs' walks and the card's stream are of one size. The branch joins the two at the card's
# decode_overlap where an SM holds two or more of a wave's CTAs (the first three groups), and keeps the larger
# where each CTA is alone on its SM (the fourth); the fifth are model-shaped GQA calls near the knee.
KNEE = [(32, 8, 128, keys, range(17, 34, 2)) for keys in (1024, 3000, 6000)] + \
       [(16, 4, 64, keys, range(35, 133, 12)) for keys in (1500, 4000)] + \
       [(8, 4, 256, keys, range(17, 34, 2)) for keys in (1024, 4096)] + \
       [(32, 8, 128, keys, range(8, 17, 2)) for keys in (8000, 16000)] + [(16, 4, 64, 8000, range(16, 34, 4))] + \
       [(32, 8, 128, 4000, (24, 30)), (28, 4, 128, 3500, (40, 56)), (40, 8, 128, 2500, (20, 28)),
        (16, 8, 256, 4000, (10, 14)), (64, 8, 128, 3000, (20, 26))]

# --sweep split (branch splitgrid's check, prepared and committed before its run; nothing fitted on it): calls that
# split, 1-20 (sequence, KV head) units over 700-90000 keys at head dims 64 / 128 / 256, priced with cuDNN's split
# count (decode_split.hpp), the split CTAs in resident waves and the merge's time a split.
SPLIT = [(32, 8, 128, keys, (1, 2, 4)) for keys in (700, 1500, 3000, 12000, 50000)] + \
        [(12, 2, 128, keys, (1, 3)) for keys in (5000, 40000, 90000)] + [(16, 1, 128, keys, (1, 5)) for keys in (20000, 70000)] + \
        [(32, 8, 64, keys, (1, 3)) for keys in (2500, 20000)] + [(12, 4, 256, keys, (1, 2, 5)) for keys in (3000, 20000)] + \
        [(16, 8, 256, keys, (1, 3)) for keys in (1500, 50000)] + [(40, 8, 128, 6000, (1, 6)), (64, 8, 128, 9000, (1, 2))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=150.0)
    ap.add_argument("--case-seconds", type=float, default=0.12)
    ap.add_argument("--sweep", choices=("occupancy", "tiles", "knee", "split"), default="occupancy")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    torch.cuda.set_device(0)
    harness.init()
    meta = {"device": harness.device_meta(), "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "harness": "perfmodel production driver (validation/scripts/production/harness.py)"}
    result = {"schema_version": 1, "meta": meta, "summary": {}, "cases": []}
    for h, kvh, d, ctx, batches in {"occupancy": SWEEPS, "tiles": TILES, "knee": KNEE, "split": SPLIT}[a.sweep]:
        for b in batches:
            if time.perf_counter() - t0 > a.budget:
                break
            case, make_set, fn, check, set_bytes = attention._case("cudnn", "decode", b, h, kvh, 1, ctx, d)
            # Kernel names once a sweep (the profiler costs ~0.3 s a case): the first batch of each.
            r = harness.run_case(case, make_set, fn, check, set_bytes, a.case_seconds, want_kernels=(b == batches[0]))
            result["cases"].append(r)
            save(a.out, result)
            print(f"[{time.perf_counter() - t0:6.1f}s] {r['name']}: ok {r['ok']} {(r.get('measured_s') or 0) * 1e6:.2f} us "
                  f"{r.get('kernel_names', '')}", flush=True)
    save(a.out, result)


if __name__ == "__main__":
    main()
