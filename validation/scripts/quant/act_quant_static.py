#!/usr/bin/env python3
"""Activation quantization at new widths, the compiled cases compiled per shape (torch.compile
dynamic=False, as a serving step of fixed shape is): a held-out check of lib/src/quant/
act_quant_forms.cpp (Inductor's split rule at each call's own size) and act_quant_cost.cpp, none of
whose cases (validation/results/h200-quant: K 4096 / 8192 / 14336, dynamic=True) are at these K.

    python3 validation/scripts/quant/act_quant_static.py OUT_DIR [--budget S]

Cases as quant_gemm.py's act_case (same harness, check, kernel names), K = 3584, 5120, 18944
(Qwen2.5-7B's hidden and down widths, Qwen2.5-14B's hidden), M = 1, 16, 128, 1024, 4096; the three
modes, compiled and eager. Writes OUT_DIR/act_quant_static.json (each case `"compile": "static"`).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402

import quant_gemm as qg  # noqa: E402

KS = (3584, 5120, 18944)
MS = (1, 16, 128, 1024, 4096)
MODES = (("tensor_dynamic", qg.q_tensor_dyn), ("row_dynamic", qg.q_row_dyn), ("tensor_static", qg.q_tensor_static))


def main():
    out = sys.argv[1]
    budget = float(sys.argv[sys.argv.index("--budget") + 1]) if "--budget" in sys.argv else 200.0
    log, meta, t0 = qg.start_run(out, "run.log", 0.08)
    torch._dynamo.config.cache_size_limit = 256
    # One static compile per shape (dynamic=False: a new shape recompiles, never generalizes).
    qg.COMPILED.update({mode: torch.compile(f, dynamic=False) for mode, f in MODES})
    meta.update(compile="torch.compile(dynamic=False) per mode; a new shape recompiles static")
    res = {"schema_version": 1, "meta": meta, "cases": []}

    def save():
        for c in res["cases"]:
            c["compile"] = "static" if c.get("implementation") == "torch.compile" else ""
        tmp = f"{out}/act_quant_static.json.tmp"
        with open(tmp, "w") as f:
            json.dump(res, f, indent=1)
        os.replace(tmp, f"{out}/act_quant_static.json")

    items = [(m, k, mode, impl) for k in KS for m in MS for mode, _ in MODES for impl in ("compile", "eager")]
    log(f"{len(items)} cases")
    qg.measure_items(items, lambda it: qg.act_case(*it), res["cases"], log, save, t0 + budget, 0.08)
    log("done")


if __name__ == "__main__":
    main()
