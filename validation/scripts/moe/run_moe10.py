#!/usr/bin/env python3
"""h200-moe10: the stand-in's top-k (vllm_style_moe.py _topk_softmax_kernel) at router shapes
chosen to test one hypothesis (branch moe10): past the SMs' fixed rate of one-warp programs
(166 cycles a program), a program's cost is its PTX instruction count at a fixed issue rate, and
the count follows the kernel's structure: 33 + 13.5 k + max(1, EP / 32) x (6 k + 8) (EP the
padded row). Predicted before this run (cycles of an SM a program, past the chain): 160 x k 6
(DeepSeek-V2, EP 256) 225; 256 x k 4 166 (at the floor, though 256 wide); 384 x k 8 (EP 512) 501;
512 x k 10 607; 256 x k 8 (h200-moe8's, repeated) 284.

    python3 validation/scripts/moe/run_moe10.py OUT_DIR [--budget S]

Each case as run_moe8.case (correctness checked first, the router GEMM before, torch.profiler over
20 eager calls, median and quartiles). Writes OUT_DIR/hf.json (routing_cases, ptx) and run.log.
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402

import harness  # noqa: E402
import run_moe8  # noqa: E402
import vllm_style_moe as vmoe  # noqa: E402

# (experts, top_k, renorm, hidden)
SHAPES = {"deepseek-v3-256e": (256, 8, True, 7168), "deepseek-v2-160e": (160, 6, False, 5120),
          "256e-k4": (256, 4, True, 7168), "kimi-k2-384e": (384, 8, True, 7168),
          "qwen3-next-512e": (512, 10, True, 2048)}
TOKENS = (1, 1024, 4096, 16384)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=60.0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    deadline = time.perf_counter() + a.budget
    logf = open(f"{a.out}/run.log", "a")

    def log(s):
        print(s, flush=True)
        logf.write(s + "\n")
        logf.flush()
    harness.init()
    import triton
    res = dict(meta=dict(harness.device_meta(), torch=torch.__version__, triton=triton.__version__,
                         date=datetime.datetime.now(datetime.timezone.utc).isoformat()), routing_cases=[])
    for model, (E, k, renorm, d) in SHAPES.items():
        for T in TOKENS:
            if time.perf_counter() > deadline:
                log(f"skip {model} T{T}: budget")
                continue
            try:
                r = run_moe8.case(model, E, k, renorm, d, T)
            except Exception as ex:  # noqa: BLE001
                r = dict(model=model, tokens=T, ok=False, error=repr(ex)[:300])
                log(traceback.format_exc()[-800:])
            res["routing_cases"].append(r)
            med = {t: round(r[t]["median"] * 1e6, 2) for t in ("topk_softmax_s",) if t in r}
            log(f"{model} E{E} k{k} T{T} ok={r.get('ok')} {med}")
            json.dump(res, open(f"{a.out}/hf.json", "w"), indent=1)
    try:
        with open(f"{a.out}/ptx.txt", "w") as dump:
            res["ptx"] = {"topk": run_moe8.ptx_ops(vmoe._topk_softmax_kernel, dump)}
    except Exception as ex:  # noqa: BLE001
        res["ptx_error"] = repr(ex)[:300]
    json.dump(res, open(f"{a.out}/hf.json", "w"), indent=1)
    log("done")


if __name__ == "__main__":
    main()
