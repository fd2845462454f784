#!/usr/bin/env python3
"""Device run of issue 10's second half: Hugging Face models under torch.compile (the `compiled`
profile, hf_compiled.py) and a held-out set of PyTorch eager ops (eager_ops.heldout_cases).

    python3 validation/scripts/production/run_compiled.py OUT_DIR [--budget S] [--layers N] [--quick]

Writes OUT_DIR/kernels.json (eager ops, the production driver's format), OUT_DIR/compiled.json
(the compiled steps) and OUT_DIR/run.log, rewritten after every case or step.
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import harness  # noqa: E402

# (model, [(phase, batch, ctx)]): decode batch 1-64, ctx 512-4096, and one prefill per model,
# the most informative first (a run out of budget keeps what it measured).
PLAN = [
    ("llama3-8b", [("decode", 1, 512), ("decode", 16, 2048), ("prefill", 1, 2048), ("decode", 64, 1024)]),
    ("llama2-7b", [("decode", 1, 2048), ("decode", 32, 512), ("prefill", 1, 1024)]),
    ("qwen2.5-7b", [("decode", 8, 1024), ("decode", 4, 4096), ("prefill", 1, 4096)]),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=200.0)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--ops-seconds", type=float, default=35.0, help="of the budget, for the eager ops")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--models", default="", help="comma list of PLAN models to run (default: all)")
    ap.add_argument("--decode-only", action="store_true", help="skip the prefill points")
    ap.add_argument("--tag", default="", help="compiled-TAG.json instead of compiled.json (one process per model)")
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
    torch._dynamo.config.cache_size_limit = 64  # one compile per static shape, never an eager fallback
    meta = {"device": harness.device_meta(), "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(), "git_sha": os.environ.get("GIT_SHA", ""),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    for mod in ("transformers", "triton"):
        try:
            meta[mod] = __import__(mod).__version__
        except Exception as e:
            meta[mod] = f"unavailable: {e}"
    log(f"meta {json.dumps(meta)}")
    result = {"schema_version": 1, "meta": meta, "summary": {}, "cases": []}
    steps = {"schema_version": 1, "meta": meta, "steps": []}

    def save():
        cs = result["cases"]
        result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs)}
        files = [(f"compiled{'-' + a.tag if a.tag else ''}.json", steps)] + ([("kernels.json", result)] if result["cases"] else [])
        for name, obj in files:
            with open(f"{a.out}/{name}.tmp", "w") as f:
                json.dump(obj, f, indent=1)
            os.replace(f"{a.out}/{name}.tmp", f"{a.out}/{name}")

    import eager_ops
    for case, make_set, fn, check, set_bytes in eager_ops.heldout_cases():
        if a.ops_seconds <= 0:
            break
        if time.perf_counter() - t0 > a.ops_seconds or (a.quick and len(result["cases"]) >= 2):
            log(f"ops: budget spent before {case['name']}")
            break
        try:
            r = harness.run_case(case, make_set, fn, check, set_bytes, 0.3)
        except Exception:
            log(f"{case['name']} raised:\n{traceback.format_exc()}")
            continue
        result["cases"].append(r)
        save()
        log(f"{r['name']}: {r.get('measured_s', 0) * 1e6:.2f} us, ok {r['ok']}, {r.get('kernels_per_launch')} kernels")

    import hf_compiled
    deadline = t0 + a.budget
    plan = [("llama3-8b", [("decode", 1, 512)])] if a.quick else PLAN
    if a.models:
        plan = [p for p in plan if p[0] in a.models.split(",")]
    if a.decode_only:  # prefill under reduce-overhead mutates the cache's inputs: no graph, then a crash (2026-12-01)
        plan = [(k, [p for p in pts if p[0] == "decode"]) for k, pts in plan]
    for key, points in plan:
        for point in points:  # one point per model build, saved at once: a crash keeps what was measured
            if time.perf_counter() > deadline:
                log(f"compiled: budget spent before {key} {point}")
                break
            try:
                steps["steps"] += hf_compiled.measure_model(key, [point], a.layers, log, deadline)
            except Exception:
                log(f"compiled {key} raised:\n{traceback.format_exc()}")
            save()
    save()
    log(f"done in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
