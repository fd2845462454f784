#!/usr/bin/env python3
"""split_probe.py's records as a kernel suite (kernels.json), so `perfmodel accuracy` prices each call as it
prices the harness's: the probe times one call on each of S rotating input sets (S x the input's bytes >
2.5 x L2) in one CUDA graph, the harness's method (harness.py), so `call_s` is the measured time a call.

    python3 validation/scripts/production/split_probe_suite.py PROBE.jsonl [...] OUT/kernels.json
"""
import json
import sys

FLOPS = {"rmsnorm": 4, "layernorm": 7, "softmax_fused": 5}


def case(d):
    r, c, k = d["rows"], d["cols"], d["kernel"]
    nbytes = 2 * (2 * r * c + (c if k == "rmsnorm" else 2 * c if k == "layernorm" else 0))
    names = [q["name"] for q in d["kernels"]]
    return {"m": 0, "n": 0, "k": 0, "rows": r, "cols": c, "vocab": 0, "batch": 0, "heads": 0, "kv_heads": 0, "q_len": 0,
            "kv_len": 0, "head_dim": 0, "causal": False, "residual": False, "l2_resident": False, "spin_seconds": 0,
            "name": f"compile_{k}_bf16_{r}x{c}", "kernel": k, "dtype": "bf16", "implementation": "torch.compile",
            "flops": FLOPS[k] * r * c, "bytes": nbytes, "ok": True, "error": "", "correct": d["max_rel_err"] < 0.05,
            "max_rel_error": d["max_rel_err"], "measured_s": d["call_s"], "kernels_per_launch": d["kernels_per_call"],
            "kernel_names": names, "median_s": d["call_s"], "graph": True, "buffer_sets": d["sets"],
            "launches_per_sample": d["sets"], "rotated_bytes": d["sets"] * nbytes}


def main():
    *ins, out = sys.argv[1:]
    meta, cases = None, []
    for path in ins:
        for line in open(path):
            d = json.loads(line)
            if d.get("kind") == "meta":
                meta = meta or d
            elif "kernels" in d:
                cases.append(case(d))
    cases.sort(key=lambda c: (c["kernel"], c["rows"], c["cols"]))
    meta = {"device": {"name": meta["device"], "sm_count": meta["sms"]}, "date": meta["date"], "torch": meta["torch"],
            "harness": "split_probe.py: one call on each of S rotating input sets in one CUDA graph, cudaEvent over 5 "
                       "replays, median / S (validation/results/h200-splitred/README.md)"}
    summary = {"cases": len(cases), "ok": len(cases), "correct": sum(c["correct"] for c in cases), "converged": 0}
    json.dump({"schema_version": 1, "meta": meta, "summary": summary, "cases": cases}, open(out, "w"), indent=1)
    print(f"{len(cases)} cases -> {out}")


if __name__ == "__main__":
    main()
