#!/usr/bin/env python3
"""The second quantization run on one H200 (issue 12, results in validation/results/h200-quant2):

    python3 validation/scripts/quant/run_quant2.py OUT_DIR [--budget S] [--decode-until S]

In order, each part stopping at its own time limit (seconds since start), OUT_DIR/quant2.json
rewritten after every point so a run stopped early keeps what it measured:
  probes   fused FP8-KV attention packages; _scaled_mm row-wise on one unpadded row
  kv       decode attention over bf16 and fp8 (cast to bf16, then SDPA) K/V, Llama-3-8B heads
  steps    Hugging Face Llama-3-8B decode steps, bf16 / FP8 row-wise dynamic / W4A16 g128 (quant_decode.py)
  cases    block-scaled FP8 _scaled_mm, INT8 _int_mm alone and with its eager scale epilogue,
           row-wise and tensor-wise FP8 K and N sweeps at M = 16 and 128 (the row-wise misses of
           h200-quant), and 1x128-group activation quantization (compiled and eager)
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, HERE)
import torch  # noqa: E402

import quant_decode  # noqa: E402
import quant_gemm  # noqa: E402
import quant_w8a8  # noqa: E402

SWEEP_K = (1024, 2048, 4096, 8192, 14336, 18944, 28672)  # at N = 4096
SWEEP_N = (1024, 2048, 8192, 16384, 28672, 57344)  # at K = 4096


def plan():
    out = []
    for model in ("llama3-8b", "qwen2.5-7b", "llama3-70b"):
        if model == "llama3-70b":  # the sweeps before the largest shapes
            for m in (16, 128):
                for var in ("fp8_row", "fp8_tensor"):
                    out += [("gemm", "sweep", f"k{k}", 4096, k, m, var) for k in SWEEP_K]
                    out += [("gemm", "sweep", f"n{n}", n, 4096, m, var) for n in SWEEP_N]
            for k in (4096, 14336):
                for m in (1, 16, 128, 1024, 4096):
                    for impl in ("compile", "eager"):
                        out.append(("act", m, k, "group_dynamic", impl))
        for tag, n, k in quant_gemm.SHAPES[model]:
            for m in quant_gemm.MS:
                out += [("block", model, tag, n, k, m), ("int8", model, tag, n, k, m, False),
                        ("int8", model, tag, n, k, m, True)]
    return out


def make(it):
    if it[0] == "gemm":
        return quant_gemm.gemm_case(*it[1:])
    if it[0] == "act":
        return quant_gemm.act_case(*it[1:])
    if it[0] == "block":
        return quant_w8a8.block_fp8_case(*it[1:])
    return quant_w8a8.int8_case(*it[1:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=430.0)
    ap.add_argument("--decode-until", type=float, default=230.0)
    ap.add_argument("--case-seconds", type=float, default=0.06)
    ap.add_argument("--parts", default="probes,kv,steps,cases", help="which parts to run, in their fixed order")
    ap.add_argument("--name", default="quant2", help="OUT_DIR/NAME.json")
    a = ap.parse_args()
    log, meta, t0 = quant_gemm.start_run(a.out, "run.log", a.case_seconds)
    try:
        import transformers
        meta["transformers"] = transformers.__version__
    except Exception as e:
        meta["transformers"] = f"{type(e).__name__}"
    log(f"meta {json.dumps(meta)}")
    res = {"schema_version": 1, "meta": meta, "probes": {}, "kv": [], "steps": [], "cases": []}

    def save():
        with open(f"{a.out}/{a.name}.json.tmp", "w") as f:
            json.dump(res, f, indent=1)
        os.replace(f"{a.out}/{a.name}.json.tmp", f"{a.out}/{a.name}.json")

    parts = set(a.parts.split(","))
    res["meta"]["parts"] = sorted(parts)
    res["probes"]["kv_packages"] = quant_decode.kv_probe()
    res["probes"]["scaled_mm_row_unpadded_m1"] = quant_decode.probe_unpadded_fp8()
    log(f"probes {res['probes']}")
    save()

    for kv in ("bf16", "fp8") if "kv" in parts else ():
        for b in (1, 16, 64):
            for ctx in (512, 2048, 8192):
                out = quant_gemm.run_one(*quant_decode.kv_case(b, ctx, kv), a.case_seconds)
                res["kv"].append(out)
                log(f"{out['name']} {out['measured_s']} k={out.get('kernels_per_launch')} {out['error']}")
    save()

    try:
        if "steps" in parts:
            quant_decode.steps("llama3-8b", (1, 16, 64), (512, 2048), ("bf16", "fp8", "int4"), log,
                               t0 + a.decode_until, res["steps"], save)
    except Exception as e:
        res["steps_error"] = f"{type(e).__name__}: {str(e)[:400]}"
        log(f"steps failed: {res['steps_error']}")
    save()
    torch.cuda.empty_cache()

    items = plan() if "cases" in parts else []
    log(f"{len(items)} cases")
    quant_gemm.measure_items(items, make, res["cases"], log, save, t0 + a.budget, a.case_seconds)
    log("done")


if __name__ == "__main__":
    main()
