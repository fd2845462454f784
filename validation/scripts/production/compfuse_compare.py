#!/usr/bin/env python3
"""Branch compfuse: h200-compiled2's nine compiled decode steps, kernel time by role, measured
(the profiled replay's trace, compiled2.jsonl) against `perfmodel ops --impl compiled` (device time,
no in-graph gap) of the cut model at --ctx kv_len.

Usage (repository root): python3 validation/scripts/production/compfuse_compare.py [perfmodel] [calibration]

Roles: gemm (nvjet + splitKreduce), norm (Inductor's RMSNorm reductions), attn_prep (the kernels
between the k / v GEMMs and cuDNN's SDPA: rotary, K / V cache writes, repeat_kv, the mask), sdpa
(cuDNN's kernel + lean_reduction), silu (SiLU*mul), add_copy (one a layer). Printed: priced / measured
- 1 and the difference in us; the last column the whole kernel sum.
"""
import json, os, re, subprocess, sys, tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def role(name):
    if name.startswith("nvjet") or "splitKreduce" in name: return "gemm"
    if "mean_mul_pow_rsqrt" in name: return "norm"
    if ("cos_index_co" in name or "index_copy_transpose_view" in name
            or "scaled_dot_product_cudnn_attention__to_copy" in name): return "attn_prep"
    if name.startswith("cudnn_generated") or "lean_reduction" in name: return "sdpa"
    if "mul_silu" in name: return "silu"
    if "add_copy" in name: return "add_copy"
    return "other"


def priced_role(op):
    n = op["name"]
    if op["kind"] == "gemm" and "rotary" not in n: return "gemm"
    if "norm" in n: return "norm"
    if n.startswith("rotary") or n.startswith("kv_write") or n.endswith(".mask") or "repeat_kv" in n: return "attn_prep"
    if n.endswith(".sdpa"): return "sdpa"
    if n == "act_mul": return "silu"
    if n == "add_copy": return "add_copy"
    return "other"


def main(exe, cal):
    with tempfile.TemporaryDirectory() as tmp:
        for line in open(os.path.join(ROOT, "validation/results/h200-compiled2/compiled2.jsonl")):
            r = json.loads(line)
            meas = {}
            for k in r["trace"]:
                meas[role(k[0])] = meas.get(role(k[0]), 0) + k[1]
            text = open(os.path.join(ROOT, "models", r["model"] + ".yaml")).read()
            text = re.sub(r"^num_hidden_layers:\s*\d+", f"num_hidden_layers: {r['layers']}", text, flags=re.M)
            path = os.path.join(tmp, f"{r['model']}-L{r['layers']}.yaml")
            open(path, "w").write(text)
            cmd = [exe, "ops", "--card", "h200", "--model", path, "--batch", str(r["batch"]), "--ctx", str(r["kv_len"]),
                   "--phase", "decode", "--impl", "compiled", "--format", "json"] + (["--calibration", cal] if cal else [])
            d = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout)
            pred = {}
            for op in d["ops"]:
                pred[priced_role(op)] = pred.get(priced_role(op), 0) + op["device_time_s"] * 1e6
            s = f"{r['model'][:14]:14s} L{r['layers']:2d} b{r['batch']:2d}"
            for k in ("gemm", "norm", "attn_prep", "sdpa", "silu", "add_copy"):
                s += f"  {k} {100 * (pred.get(k, 0) / meas[k] - 1):+5.1f}% ({pred.get(k, 0) - meas[k]:+6.1f})"
            s += f"  all {100 * (sum(pred.values()) / sum(meas.values()) - 1):+5.2f}%"
            print(s)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel", sys.argv[2] if len(sys.argv) > 2 else None)
