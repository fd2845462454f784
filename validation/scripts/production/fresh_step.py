"""One compiled decode step in a fresh Python process (hf_compiled.measure_model, the method of
validation/results/h200-compiled), appended to OUT as a JSON line: the host time before a graph replay
measured without the earlier steps' compiles in the process. Run from the repository root:

    python3 validation/scripts/production/fresh_step.py MODEL BATCH CTX OUT.jsonl

validation/scripts/production/fresh_and_streams.sh runs h200-compiled's seven steps so."""
import json, os, sys, time
sys.path.insert(0, "validation/scripts/production")
import torch
import harness, hf_compiled
key, b, ctx, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
torch.cuda.set_device(0)
harness.init()
torch._dynamo.config.cache_size_limit = 64
t0 = time.perf_counter()
r = hf_compiled.measure_model(key, [("decode", b, ctx)], 4, lambda m: print(m, flush=True), t0 + 300)
for x in r:
    x["process"] = "fresh"
    x["versions"] = {"torch": torch.__version__, "cudnn": torch.backends.cudnn.version()}
    open(out, "a").write(json.dumps(x) + "\n")
