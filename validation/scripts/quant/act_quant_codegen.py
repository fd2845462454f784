#!/usr/bin/env python3
"""What Inductor generates for FP8 activation quantization, static against dynamic shapes: the Triton
source and the autotuner's chosen configs, to name the mechanism behind h200-actq15's known miss
(static compiles 1.3-1.7x faster than dynamic=True's kernels at large sizes).

    TORCHINDUCTOR_CACHE_DIR=OUT/cache python3 validation/scripts/quant/act_quant_codegen.py OUT

Per (mode, dynamic, M, K): a fresh dynamo state, torch.compile(fn, dynamic=...), the call run under
torch._inductor.utils.run_and_get_code (its generated wrapper + kernels kept in OUT/inductor_code.json), then
timed with CUDA events (median of 50 calls after 10 warm-ups, each call on the same input: L2-warm
at small sizes) and its kernels' names and durations from torch.profiler. The autotuner's
.best_config files stay in the cache folder (the caller gathers them into OUT/configs.json).
"""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402
from torch._inductor.utils import run_and_get_code  # noqa: E402

import quant_gemm as qg  # noqa: E402

MODES = {"tensor_dynamic": qg.q_tensor_dyn, "row_dynamic": qg.q_row_dyn, "tensor_static": qg.q_tensor_static}
SHAPES = ((16, 18944), (128, 18944), (4096, 18944), (4096, 3584), (1024, 5120))


def timed(f, args):
    for _ in range(10):
        f(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(50):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        f(*args)
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e-3)
    return statistics.median(times)


def kernels(f, args):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        f(*args)
        torch.cuda.synchronize()
    return [(e.key, e.device_time_total * 1e-6) for e in p.key_averages() if e.device_time_total > 0]


def main():
    out = sys.argv[1]
    torch._dynamo.config.cache_size_limit = 256
    rows = []
    for mode, fn in MODES.items():
        for dynamic in (False, True):
            for m, k in SHAPES:
                torch._dynamo.reset()
                f = torch.compile(fn, dynamic=dynamic)
                x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                args = (x, torch.tensor(0.01, device="cuda")) if mode == "tensor_static" else (x,)
                tag = f"{mode}_{'dynamic' if dynamic else 'static'}_m{m}_k{k}"
                try:
                    _, code = run_and_get_code(f, *args)
                    row = dict(tag=tag, mode=mode, dynamic=dynamic, m=m, k=k, code=code)
                    rows.append(row)
                    row["median_s"] = t = timed(f, args)
                    row["kernels"] = ks = kernels(f, args)
                    print(f"{tag}: {t * 1e6:.2f} us {[(n[:48], round(d * 1e6, 2)) for n, d in ks]}", flush=True)
                except Exception as e:  # one variant's failure must not lose the others
                    rows.append(dict(tag=tag, error=f"{type(e).__name__}: {str(e)[:300]}"))
                    print(f"{tag}: ERROR {e}", flush=True)
                with open(f"{out}/inductor_code.json", "w") as fh:
                    json.dump(dict(torch=torch.__version__, rows=rows), fh, indent=1)


if __name__ == "__main__":
    main()
