#!/usr/bin/env python3
"""cuDNN's unmasked decode split (issue 10, branch splitgrid): the grid of the SDPA kernel and of
lean_reduction_kernel as PyTorch's SDPA calls it in eager transformers (enable_gqa, no mask), over CTA
counts 1-64 and 640-131072 keys at head dims 64 / 128 / 256. The resident rule prices the split's CTA
count as the largest power of two of splits within the resident slots (split_ctas); the b1 calls with
few CTAs and short per-split walks run 7-20 % slower than priced, which fewer splits would explain.
This reads the split count from the grid. Each case: attention.py's tensors and call, 20 calls in one
CUDA graph, 3 replays under torch.profiler (maskocc.py's method), every kernel's (name, us, grid, block).
The kernels' times read the cache from L2 where it fits (one buffer set): the grids are the point.
Nothing is fitted here.

Usage: python3 validation/scripts/production/splitgrid.py OUT [BUDGET_S]     # OUT/splitgrid.jsonl
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import attention  # noqa: E402
from maskocc import capture, trace_kernels  # noqa: E402

# (batch, heads, kv heads, keys, head dim)
CASES = [(1, 32, 8, kv, 128) for kv in (640, 1024, 2048, 4096, 8192, 16384, 65536)] + \
        [(1, 32, 4, kv, 128) for kv in (1024, 4096, 8192, 25000, 60000)] + \
        [(1, 12, 2, kv, 128) for kv in (2048, 8192, 25000, 110000)] + \
        [(1, 16, 1, kv, 128) for kv in (4096, 30000)] + \
        [(b, 32, 8, 4096, 128) for b in (2, 4, 8)] + [(1, 32, 32, kv, 128) for kv in (2048, 8192)] + \
        [(1, 32, 8, kv, 64) for kv in (1024, 4096, 30000)] + [(2, 16, 4, 8000, 64), (3, 9, 3, 40000, 64)] + \
        [(1, 16, 8, kv, 256) for kv in (4096, 30000)] + [(1, 12, 4, kv, 256) for kv in (10000, 40000)] + \
        [(2, 8, 4, 2048, 256), (4, 8, 4, 30000, 256)]


def main():
    out_dir = sys.argv[1]
    budget = float(sys.argv[2]) if len(sys.argv) > 2 else 90.0
    t0 = time.time()
    out = open(os.path.join(out_dir, "splitgrid.jsonl"), "w")
    out.write(json.dumps({"kind": "meta", "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
                          "device": torch.cuda.get_device_name(0),
                          "sms": torch.cuda.get_device_properties(0).multi_processor_count}) + "\n")
    for b, h, kvh, kv, d in CASES:
        if time.time() - t0 > budget:
            break
        rec = {"kind": "sdpa", "batch": b, "heads": h, "kv_heads": kvh, "kv_len": kv, "head_dim": d}
        try:
            case, make_set, fn, check, _ = attention._case("cudnn", "decode", b, h, kvh, 1, kv, d)
            s = make_set()
            err = check(s)
            rec["max_rel_err"] = float(err[0] if isinstance(err, tuple) else err)
            rec["trace"] = trace_kernels(capture(lambda: fn(*s)))
            del s
        except Exception as e:  # keep going
            rec["error"] = repr(e)[:300]
        rec["t"] = round(time.time() - t0, 1)
        out.write(json.dumps(rec) + "\n")
        out.flush()
        grids = sorted({str(k[2]) for k in rec.get("trace", [])})
        print(b, h, kvh, kv, d, rec.get("error", ""), grids, rec["t"], flush=True)


if __name__ == "__main__":
    main()
