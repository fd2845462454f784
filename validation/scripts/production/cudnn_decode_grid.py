#!/usr/bin/env python3
"""cuDNN's decode SDPA over many short sequences (issue 10): the kernel transformers' eager SDPA
call and the compiled StaticCache run on the H200 (validation/results/h200-hf-grid kernel names).
The profile's cuDNN decode parameters were fitted on 10 shapes of at least 1024 keys or few CTAs
(h200-production); Hugging Face steps at batch 64-128 over 256-1024 keys ran 18-31 % slower than
priced. This times the kernel alone over batch 8-256 x 128-2048 keys, nothing fitted on it yet.

Usage: python3 validation/scripts/production/cudnn_decode_grid.py OUT [--budget S]
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

# (heads, KV heads, head dim): Llama-3-8B, Qwen2.5-7B, Llama-2-7B (MHA), a head-dim-64 GQA.
SHAPES = [(32, 8, 128), (28, 4, 128), (32, 32, 128), (16, 4, 64)]
BATCHES = [8, 32, 64, 128, 256]
CONTEXTS = [128, 256, 512, 1024, 2048]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=90.0)
    ap.add_argument("--case-seconds", type=float, default=0.15)
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
    for h, kvh, d in SHAPES:
        for b in BATCHES:
            for ctx in CONTEXTS:
                if time.perf_counter() - t0 > a.budget:
                    break
                case, make_set, fn, check, set_bytes = attention._case("cudnn", "decode", b, h, kvh, 1, ctx, d)
                r = harness.run_case(case, make_set, fn, check, set_bytes, a.case_seconds)
                result["cases"].append(r)
                save(a.out, result)
                print(f"[{time.perf_counter() - t0:6.1f}s] {r['name']}: ok {r['ok']} correct {r.get('correct')} "
                      f"{(r.get('measured_s') or 0) * 1e6:.2f} us {r.get('kernels_per_launch')} kernels", flush=True)
    save(a.out, result)


if __name__ == "__main__":
    main()
