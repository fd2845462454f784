#!/usr/bin/env python3
"""Branch shortk's sweep (issue 10): GEMMs at short K (256-1024) through F.linear (bf16, fp16) and
torch._scaled_mm (fp8 e4m3, tensor-wise scales, bf16 out), long-K controls (K 4096-8192) at the same
M and N, stream-bound decode rows at short K, and a few rows at K 3584 (nvjet's unsplit tile; W8A16's
qkv N 4608). Timed with harness.py's method (gemm.py's cases); kernel names recorded.

    python3 shortk.py OUT [--budget S] [--case-seconds S]

No shape of h200-heldout20's models (SmolLM2: N or K in 576, 192, 1536, 49152) is used. Fit / held
out: a case is held out when zlib.crc32(name) % 3 == 0 (validation/results/h200-shortk/README.md).
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

SHORT_K = (256, 384, 512, 640, 768, 1024)
MS = (256, 640, 1280, 2500, 4000, 6000)
NS = (2048, 3072, 5120, 8192, 16384, 32768)


def shapes():
    out = []
    # short K: every (K, N) at three of the six M values, rotating, so the grid spans M
    i = 0
    for k in SHORT_K:
        for n in NS:
            out += [("bf16", "sk", MS[(i + j) % len(MS)], n, k) for j in (0, 2, 4)]
            i += 1
    # one-wave / few-tile calls: small N, compute and stream near equal (smallk's (A2))
    i = 0
    for k in (512, 640, 768):
        for n in (512, 640, 768, 1024, 1280, 2560):
            out += [("bf16", "ow", (1000, 2400, 4800)[(i + j) % 3], n, k) for j in (0, 1)]
            i += 1
    # long-K controls at the same M, N
    i = 0
    for k in (4096, 6144, 8192):
        for n in (2048, 5120, 8192, 16384, 32768):
            ms = (640, 2500, 6000) if n < 16384 else (256, 1280, 2500)
            out += [("bf16", "lk", ms[(i + j) % 3], n, k) for j in (0, 1)]
            i += 1
    # fp16 short K
    out += [("fp16", "sk", m, n, k) for (m, n, k) in ((1280, 8192, 512), (4000, 5120, 768), (6000, 16384, 384),
                                                     (2500, 32768, 640), (640, 3072, 1024), (2400, 1024, 640),
                                                     (4800, 640, 512), (1000, 2560, 768))]
    # fp8 short K and a long-K control
    i = 0
    for k in (512, 768, 1024):
        for n in (4096, 16384, 32768):
            out += [("fp8", "sk", (1000, 3000, 6000)[(i + j) % 3], n, k) for j in (0, 1)]
            i += 1
    out += [("fp8", "lk", m, n, 8192) for m, n in ((1000, 16384), (3000, 4096), (6000, 8192))]
    # decode rows at short K (stream-bound: the one-wave mechanism must leave them alone)
    out += [("bf16", "dec", m, n, k) for m, n, k in ((1, 8192, 512), (8, 16384, 768), (32, 32768, 640),
                                                    (4, 5120, 1024), (16, 2048, 384), (64, 8192, 256))]
    # K 3584 at a few rows: which nvjet tile, split or not (W8A16 qkv N 4608)
    out += [("bf16", "k3584", m, n, 3584) for m in (8, 16, 32, 64) for n in (4608, 9216)]
    out += [("bf16", "k3584", m, 2304, 3584) for m in (16, 48)]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=125.0)
    ap.add_argument("--case-seconds", type=float, default=0.25)
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
    harness.init()
    meta = {"device": harness.device_meta(), "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "harness": "perfmodel production driver (validation/scripts/production/harness.py): fp32 reference on "
                       "sampled rows, CUDA graph of L launches over rotating input sets > 2x L2, cudaEvent per replay, "
                       f"median of >= 10 samples, stop at (q3-q1)/median <= 0.5% or {a.case_seconds} s; no cold time"}
    log(f"meta {json.dumps(meta)}")
    plan = shapes()
    random.Random(10).shuffle(plan)  # a run cut by its budget loses a spread of cases, not one block
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
