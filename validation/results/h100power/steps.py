"""Fused steps (validation/scripts/production/fused_step.py) replayed for ~4 s each, one JSON line per step with the
host clock at the start and end of the timed replays, to read nvidia-smi's clock log (smi.csv) over them."""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "production"))
import fused_step as fs  # noqa: E402

POINTS = [("llama3-8b", "prefill", 1, 4096), ("qwen2.5-7b", "prefill", 1, 4096), ("tinyllama-1.1b", "prefill", 1, 4096),
          ("llama3-8b", "prefill", 1, 512), ("llama3-8b", "decode", 64, 2048)]
fs.harness.init()
for key, phase, b, ctx in POINTS:
    s = fs.Spec(key)
    st = fs.Step(s, fs.Weights(s), fs.Kernels(), phase, b, ctx)
    t0 = time.time()
    r = fs.measure(st, max_seconds=4.0)
    print(json.dumps(dict(model=key, phase=phase, batch=b, ctx=ctx, start_unix=t0, end_unix=time.time(),
                          device_s=r["device_s"], device_p10_s=r["device_p10_s"], device_p90_s=r["device_p90_s"],
                          samples=r["samples"], kernel_s=r["kernel_s"])), flush=True)
    del st
    fs.torch.cuda.empty_cache()
