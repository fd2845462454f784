#!/usr/bin/env python3
"""Measures production kernels on the GPU through PyTorch (issue 10): SDPA attention per backend,
F.linear / _scaled_mm GEMMs, PyTorch eager and torch.compile'd ops, Hugging Face decode steps.

    python3 validation/scripts/production/run_all.py OUT_DIR [--quick] [--budget S]
        [--groups attention,gemm,ops,hf] [--case-seconds S] [--shapes default|heldout16|...|heldout22]

Writes OUT_DIR/kernels.json (the backend's result format: a "cases" list with the same field
names, plus `implementation`, `kernel_names` and `graph` per case; read by
`perfmodel accuracy --measured`), OUT_DIR/hf.json (the transformers steps) and OUT_DIR/run.log.
Both JSON files are rewritten after every case, so a run stopped at its time limit still leaves
what it measured. The budget is split over the groups; a group past its share stops early.
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

SHARE = {"attention": 0.36, "gemm": 0.17, "ops": 0.22, "hf": 0.25}  # of the budget, by expected cost


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--quick", action="store_true", help="one case per group, to check the script runs")
    ap.add_argument("--budget", type=float, default=420.0, help="seconds for the whole run")
    ap.add_argument("--groups", default="attention,gemm,ops,hf")
    ap.add_argument("--case-seconds", type=float, default=0.4, help="time limit per case's sampling")
    ap.add_argument("--shapes", default="default", choices=("default", "heldout16", "heldout17", "heldout18", "heldout19", "heldout20", "heldout21", "heldout22", "heldout23", "heldout24", "heldout25", "heldout26", "heldout27", "heldout29", "heldout30", "heldout31", "heldout33", "heldout34", "heldout35", "lonesplit", "splitgap", "combinel2", "combinewave", "combinedim", "widegroup", "wideprobe", "widecheck", "x256check", "heldout36", "flash2wide", "flash30", "oddsplit", "x256", "tailpace", "tailprobe", "lonecta", "headdims", "afterfit28", "normwaves", "normwaves2", "normissue", "tf3217", "tf32split"),
                    help="attention, GEMM (and ops, where the set has them) shape lists: attention.py / gemm.py / "
                         "eager_ops.py's, or a held-out set's (heldout16.py, heldout17.py)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t_start = time.perf_counter()
    logf = open(f"{a.out}/run.log", "a")

    def log(msg):
        line = f"[{time.perf_counter() - t_start:7.1f}s] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    torch.cuda.set_device(0)
    harness.init()
    torch.backends.cuda.matmul.allow_tf32 = True  # the tf32 GEMM cases; bf16/fp16/fp8 do not read it
    torch._dynamo.config.cache_size_limit = 64    # one compile per static shape, never an eager fallback
    meta = {"device": harness.device_meta(), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "git_sha": os.environ.get("GIT_SHA", ""), "torch": torch.__version__,
            "cuda_runtime": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
            "harness": "perfmodel production driver (validation/scripts/production): fp32 reference on sampled rows, "
                       "CUDA graph of L launches over rotating input sets > 2x L2, cudaEvent per replay, median of >= 10 "
                       f"samples, stop at (q3-q1)/median <= 0.5% or {a.case_seconds} s; no cold time"}
    for mod in ("transformers", "triton"):
        try:
            meta[mod] = __import__(mod).__version__
        except Exception as e:
            meta[mod] = f"unavailable: {e}"
    meta["device"]["torch_reports"] = torch.cuda.get_device_name(0)
    log(f"meta {json.dumps(meta)}")
    result = {"schema_version": 1, "meta": meta, "summary": {}, "cases": []}
    hf = {"schema_version": 1, "meta": meta, "steps": []}

    def save():
        cs = result["cases"]
        result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs),
                             "converged": sum(bool(c.get("converged")) for c in cs)}
        for name, obj in (("kernels.json", result), ("hf.json", hf)):
            tmp = f"{a.out}/{name}.tmp"
            with open(tmp, "w") as f:
                json.dump(obj, f, indent=1)
            os.replace(tmp, f"{a.out}/{name}")

    groups = a.groups.split(",")
    total_share = sum(SHARE[g] for g in groups)
    for g in groups:
        g_start = time.perf_counter()
        g_budget = a.budget * SHARE[g] / total_share
        # what is left of the whole budget caps the group, so an early overrun does not cost later groups all
        g_budget = min(g_budget, a.budget - (g_start - t_start))
        log(f"group {g}: {g_budget:.0f} s")
        try:
            if g == "hf":
                run_hf(a, hf, save, log, g_start, g_budget)
                continue
            import attention
            import eager_ops
            import gemm
            ops = lambda: eager_ops.cases(quick=a.quick)  # noqa: E731
            if a.shapes != "default":
                held = __import__(a.shapes)
                att = lambda: attention.cases(held.BACKENDS, a.quick, held.PREFILL, held.DECODE)  # noqa: E731
                gem = lambda: gemm.cases(a.quick, getattr(held, "gemm_shapes", list)())  # noqa: E731
                if hasattr(held, "ops_cases"):
                    ops = held.ops_cases
            else:
                att = lambda: attention.cases(quick=a.quick)  # noqa: E731
                gem = lambda: gemm.cases(quick=a.quick)  # noqa: E731
            gen = {"attention": att, "gemm": gem, "ops": ops}[g]()
            for case, make_set, fn, check, set_bytes in gen:
                if time.perf_counter() - g_start > g_budget:
                    log(f"group {g}: budget spent, stopping before {case['name']}")
                    break
                t0 = time.perf_counter()
                r = harness.run_case(case, make_set, fn, check, set_bytes, a.case_seconds)
                result["cases"].append(r)
                save()
                if r["ok"]:
                    tflops = r["flops"] / r["measured_s"] * 1e-12
                    gbs = r["bytes"] / r["measured_s"] * 1e-9
                    log(f"{r['name']}: {r['measured_s'] * 1e6:.2f} us, {tflops:.1f} TFLOP/s, {gbs:.0f} GB/s, "
                        f"{r.get('kernels_per_launch')} kernels, err {r['max_rel_error']:.2g}, graph {r['graph']}, "
                        f"clk {r['sm_clock_mhz_min']}-{r['sm_clock_mhz_max']}, {r['stop_reason']} "
                        f"[{time.perf_counter() - t0:.1f} s]")
                else:
                    log(f"{r['name']}: FAILED {r['error']} [{time.perf_counter() - t0:.1f} s]")
        except Exception:
            log(f"group {g} raised:\n{traceback.format_exc()}")
        save()
    log(f"done in {time.perf_counter() - t_start:.1f} s: {result['summary']}")


def run_hf(a, hf, save, log, g_start, g_budget):
    import hf_decode
    plan = [("llama2-7b", (1, 8, 32), (512, 2048)), ("qwen2.5-7b", (1, 8, 32), (512, 2048)),
            ("gpt2", (1, 8, 32), (512, 1000))]  # GPT-2 has 1024 positions
    if a.quick:
        plan = [("gpt2", (1,), (512,))]
    for key, batches, ctxs in plan:
        if time.perf_counter() - g_start > g_budget:
            log(f"hf: budget spent, stopping before {key}")
            break
        try:
            hf["steps"] += hf_decode.measure_model(key, batches, ctxs, log, n=10 if a.quick else 20)
        except Exception:
            log(f"hf {key} raised:\n{traceback.format_exc()}")
        save()


if __name__ == "__main__":
    main()
