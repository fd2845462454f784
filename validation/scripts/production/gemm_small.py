#!/usr/bin/env python3
"""Held-out small-M GEMMs through F.linear (PyTorch's cuBLASLt path), bf16 and fp16: M = 1 to 512
tokens on the projection shapes of models that h200-production does not measure (Llama-2-7B,
Mistral-7B / Mixtral-8x7B, Llama-3.2-1B, Qwen2-1.5B, Qwen2.5-0.5B and a Llama-3-70B shard at
tensor parallel 8). Every (N, K) here is absent from validation/scripts/production/gemm.py, so no
fit sees them: `perfmodel accuracy --measured validation/results/h200-gemm-small` is held out.

    python3 validation/scripts/production/gemm_small.py OUT_DIR [--budget S] [--case-seconds S]

Same method as run_all.py (harness.py: correctness on sampled rows, kernel names through
torch.profiler, CUDA-graph replay over rotating sets > 2x L2). OUT_DIR/kernels.json is rewritten
after every case, so a run stopped at its limit keeps what it measured.
"""
import argparse
import datetime
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import gemm  # noqa: E402
import harness  # noqa: E402

# (tag, N, K) as nn.Linear stores the weight (N x K); fused QKV / gate-up where vLLM fuses them.
SHAPES = [("l2_7b_qkv", 12288, 4096), ("l2_7b_gateup", 22016, 4096), ("l2_7b_down", 4096, 11008),
          ("mistral_qkv", 6144, 4096), ("mixtral_w1", 14336, 4096), ("mixtral_router", 8, 4096),
          ("l32_1b_q", 2048, 2048), ("l32_1b_kv", 512, 2048), ("l32_1b_down", 2048, 8192),
          ("q2_1_5b_qkv", 2048, 1536), ("q2_1_5b_gateup", 17920, 1536), ("q2_1_5b_down", 1536, 8960),
          ("q25_05b_kv", 128, 896), ("l3_70b_tp8_q", 1024, 8192), ("l3_70b_tp8_kv", 128, 8192),
          ("l3_70b_tp8_down", 8192, 3584)]
MS = (1, 8, 32, 64, 128, 256, 512)
FP16_TAGS = ("l2_7b_down", "mistral_qkv", "l32_1b_kv", "l3_70b_tp8_q")


def plan():
    """(dtype, tag, m, n, k): bf16 on every shape, then fp16 on four; M inner, so a run cut short
    still covers the first shapes at every M."""
    out = [("bf16", tag, m, n, k) for tag, n, k in SHAPES for m in MS]
    out += [("fp16", tag, m, n, k) for tag, n, k in SHAPES if tag in FP16_TAGS for m in MS]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=150.0, help="seconds for the whole run")
    ap.add_argument("--case-seconds", type=float, default=0.3, help="time limit per case's sampling")
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
            "what": "held-out small-M F.linear GEMMs (validation/scripts/production/gemm_small.py)",
            "harness": "perfmodel production driver (validation/scripts/production/harness.py): fp32 reference on "
                       "sampled rows, CUDA graph of L launches over rotating input sets > 2x L2, cudaEvent per "
                       f"replay, median of >= 10 samples, stop at (q3-q1)/median <= 0.5% or {a.case_seconds} s"}
    log(f"meta {json.dumps(meta)}")
    result = {"schema_version": 1, "meta": meta, "summary": {}, "cases": []}

    def save():
        cs = result["cases"]
        result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs),
                             "converged": sum(bool(c.get("converged")) for c in cs)}
        tmp = f"{a.out}/kernels.json.tmp"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=1)
        os.replace(tmp, f"{a.out}/kernels.json")

    for dt, tag, m, n, k in plan():
        if time.perf_counter() - t0 > a.budget:
            log(f"budget spent, stopping before {dt} {tag} m{m}")
            break
        t1 = time.perf_counter()
        case, make_set, fn, check, set_bytes = gemm._case(dt, tag, m, n, k)
        r = harness.run_case(case, make_set, fn, check, set_bytes, a.case_seconds)
        result["cases"].append(r)
        save()
        if r["ok"]:
            log(f"{r['name']}: {r['measured_s'] * 1e6:.2f} us, {r['bytes'] / r['measured_s'] * 1e-9:.0f} GB/s, "
                f"{r.get('kernel_names')}, {r['stop_reason']} [{time.perf_counter() - t1:.1f} s]")
        else:
            log(f"{r['name']}: FAILED {r['error']} [{time.perf_counter() - t1:.1f} s]")
    save()
    log(f"done in {time.perf_counter() - t0:.1f} s: {result['summary']}")


if __name__ == "__main__":
    main()
