#!/usr/bin/env python3
"""Branch gemmtile's sweep (issue 10): mid-M cuBLASLt GEMMs (M 128-1024) at large N and K, where
h200-heldout21 found nvjet's one-wave tiles (512x80 coopA, 2 stages; 64x40 unsplit at 200 rows) priced
under, plus a few tf32 (sm90 xmma) calls of 2-4 waves and align1 (odd N) calls between 256 and 1500 rows.
Timed with harness.py's method (gemm.py's cases); kernel names recorded.

    python3 gemmtile.py OUT [--budget S] [--case-seconds S]

No shape of h200-heldout21 (700 x 7168 x 12288, 200 x 1600 x 6400, 300 x 12288 x 1536 tf32, N 50257) is used.
Fit / held out: a case is held out when zlib.crc32(name) % 2 == 1 (validation/results/h200-gemmtile/README.md).
"""
import argparse
import datetime
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import gemm  # noqa: E402
import harness  # noqa: E402

MS = (128, 160, 192, 256, 320, 384, 448, 512, 576, 640, 768, 896, 1024)
NS = (4096, 5120, 6144, 7168, 8192, 11008, 14336, 16384)
KS = (4096, 5120, 8192, 12288, 14336, 16384)
SMALL_NS = (1024, 1280, 1536, 2048, 2560)
SMALL_KS = (4096, 6144, 8192, 11008, 14336)
SMALL_MS = (160, 200, 240, 256, 320, 400, 480, 576)


def shapes():
    out = []
    i = 0
    for n in NS:  # every (N, K) at 4 of the 13 M values, rotating
        for k in KS:
            out += [("bf16", "mid", MS[(i * 3 + j * 3 + j) % len(MS)], n, k) for j in range(4)]
            i += 1
    i = 0
    for n in SMALL_NS:  # small N, long K: one-wave fill tiles against split-K
        for k in SMALL_KS:
            out += [("bf16", "nk", SMALL_MS[(i + 4 * j) % len(SMALL_MS)], n, k) for j in range(2)]
            i += 1
    # fp16 at a few of the same
    out += [("fp16", "mid", m, n, k) for m, n, k in ((640, 7168, 12288), (512, 14336, 8192), (384, 8192, 16384),
                                                    (256, 2048, 8192), (896, 5120, 14336), (200, 1536, 11008))]
    # tf32: sm90 xmma tiles over 2-4 waves
    out += [("tf32", "xm", m, n, k) for m, n, k in ((300, 8192, 1536), (300, 16384, 1024), (400, 10240, 2048),
                                                   (260, 14336, 1536), (500, 8192, 2048), (384, 12288, 1024),
                                                   (640, 8192, 1536), (200, 16384, 2048), (300, 6144, 4096),
                                                   (450, 11008, 1536))]
    # align1: odd N (rows not 16-byte aligned): cuBLAS's CUTLASS sm75 kernels
    out += [("bf16", "a1", m, n, k) for m, n, k in ((400, 32001, 1024), (700, 32001, 1024), (1000, 20001, 2048),
                                                   (500, 20001, 2048), (256, 32001, 2048), (1500, 12001, 1024),
                                                   (900, 16001, 1536), (600, 24001, 1024))]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=115.0)
    ap.add_argument("--case-seconds", type=float, default=0.2)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    logf = open(f"{a.out}/run.log", "a")

    def log(msg):
        line = f"[{time.perf_counter() - t0:7.1f}s] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    torch.cuda.set_device(0)
    torch.backends.cuda.matmul.allow_tf32 = True  # the tf32 cases; bf16 / fp16 do not read it (run_all.py's)
    harness.init()
    meta = {"device": harness.device_meta(), "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "harness": "perfmodel production driver (validation/scripts/production/harness.py): fp32 reference on "
                       "sampled rows, CUDA graph of L launches over rotating input sets > 2x L2, cudaEvent per replay, "
                       f"median of >= 10 samples, stop at (q3-q1)/median <= 0.5% or {a.case_seconds} s; no cold time"}
    log(f"meta {json.dumps(meta)}")
    plan = shapes()
    random.Random(21).shuffle(plan)  # a run cut by its budget loses a spread of cases, not one block
    log(f"{len(plan)} cases")
    result = {"schema_version": 1, "meta": meta, "summary": {}, "cases": []}

    def save():
        cs = result["cases"]
        result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs)}
        with open(f"{a.out}/kernels.json.tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(f"{a.out}/kernels.json.tmp", f"{a.out}/kernels.json")

    for n_done, (case, make_set, fn, check, nbytes) in enumerate(gemm.cases(shapes=plan)):
        if time.perf_counter() - t0 > a.budget:
            log(f"budget spent after {n_done} cases")
            break
        t1 = time.perf_counter()
        r = harness.run_case(case, make_set, fn, check, nbytes, a.case_seconds)
        result["cases"].append(r)
        if n_done % 10 == 0:
            save()
        if r["ok"]:
            log(f"{r['name']}: {r['measured_s'] * 1e6:.2f} us, {r['flops'] / r['measured_s'] * 1e-12:.0f} TF/s, "
                f"{r.get('kernel_names')}, clk {r['sm_clock_mhz_min']}-{r['sm_clock_mhz_max']}, "
                f"{r['stop_reason']} [{time.perf_counter() - t1:.1f} s]")
        else:
            log(f"{r['name']}: FAILED {r['error']}")
    save()
    log(f"done in {time.perf_counter() - t0:.1f} s: {result['summary']}")


if __name__ == "__main__":
    main()
