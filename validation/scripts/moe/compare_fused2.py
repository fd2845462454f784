#!/usr/bin/env python3
"""h200-moe-fused2 (vLLM-style fused MoE and wide-tile MLA stand-ins) against the `fused` profile.

Usage: [PERFMODEL_CARD=h100-sxm] python3 validation/scripts/moe/compare_fused2.py [results dir] [perfmodel binary]

(a) MoE layer: the CUDA-graph replay of one layer against the fused profile's router + experts
    (+ shared) ops of one layer (`perfmodel decode|prefill --impl fused`), the two grouped GEMM
    launches (_fused_moe_gemm_kernel, profiler) against the grouped_gemm ops, and the other
    kernels against the rest. Points are split by fit_fused_moe.py's FIT rule (held out: the rest).
(b) MLA decode with 64-head tiles: per point the faster of the two split policies against
    `perfmodel op --kind attention_mla_decode --impl fused`.
(c) FlashMLA's published anchor (deepseek-ai/FlashMLA, H800 SXM5: up to 3000 GB/s memory-bound,
    580 TFLOP/s compute-bound) against what perfmodel predicts for the H800 card.
Nothing is fitted here.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_fused import med, moe_ops, run_json  # noqa: E402
from fit_fused_moe import is_fit_point  # noqa: E402


def mla_pred(binary, card, b, heads, L, width=576):
    d = run_json(binary, "op", "--kind", "attention_mla_decode", "--batch", str(b), "--heads", str(heads), "--kv-heads",
                 "1", "--kv-len", str(L), "--head-dim", str(width), "--impl", "fused", card=card)
    return d["device_time_s"] if "device_time_s" in d else d["ops"][0]["device_time_s"]


def moe_prediction(binary, c):
    """The layer's ops priced as a graph replay (time_s: kernels and the idle between them) and
    as kernels alone (device_time_s)."""
    args = (["decode", "--batch", str(c["tokens"]), "--ctx", "512"] if c["phase"] == "decode"
            else ["prefill", "--batch", "1", "--ctx", str(c["tokens"])])
    d = run_json(binary, *args, "--model", c["model"], "--impl", "fused")
    return moe_ops(d, "time_s"), moe_ops(d)


def gemm_measured(c):
    return sum(x["device_s"] for x in c["kernel_device_s"] if x["name"].startswith("_fused_moe_gemm_kernel"))


def main(folder, binary):
    data = json.load(open(os.path.join(folder, "hf.json")))
    print("## MoE layer (vLLM-style fused_moe, CUDA graph) against the fused profile's MoE ops of one layer\n")
    print("| model | phase | T | BLOCK_M | set | measured us | predicted us | err | kernel sum us | err vs kernel sum | grouped GEMMs us | predicted us | err | other kernels us | predicted us |")
    print("| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = []
    for c in data["moe_cases"]:
        if not c["ok"]:
            continue
        replay, kernels = moe_prediction(binary, c)
        pred = sum(t for _, t in replay.values())
        pred_k = sum(t for _, t in kernels.values())
        pred_g = sum(t for k, t in kernels.values() if k == "grouped_gemm")
        meas_g = gemm_measured(c)
        ksum = sum(x["device_s"] for x in c["kernel_device_s"])
        other = ksum - meas_g
        s = "fit" if is_fit_point(c) else "held out"
        e, eg, ek = pred / c["median_s"] - 1, pred_g / meas_g - 1, pred_k / ksum - 1
        rows.append((c, s, e, eg, ek))
        print(f"| {c['model']} | {c['phase']} | {c['tokens']} | {c['block_m']} | {s} | {c['median_s'] * 1e6:.1f} | "
              f"{pred * 1e6:.1f} | {e:+.1%} | {ksum * 1e6:.1f} | {ek:+.1%} | {meas_g * 1e6:.1f} | {pred_g * 1e6:.1f} | "
              f"{eg:+.1%} | {other * 1e6:.1f} | "
              f"{(pred_k - pred_g) * 1e6:.1f} |")
    print("\n| set | points | layer median abs err | layer max | vs kernel sum median | grouped GEMMs median abs err | grouped max |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, sel in (("fit", lambda r: r[1] == "fit"), ("held out", lambda r: r[1] != "fit"),
                      ("decode", lambda r: r[0]["phase"] == "decode"), ("all", lambda r: True)):
        sub = [r for r in rows if sel(r)]
        if sub:
            print(f"| {name} | {len(sub)} | {med([abs(r[2]) for r in sub]):.1%} | {max(abs(r[2]) for r in sub):.1%} | "
                  f"{med([abs(r[4]) for r in sub]):.1%} | {med([abs(r[3]) for r in sub]):.1%} | {max(abs(r[3]) for r in sub):.1%} |")

    print("\n## MLA decode, 64-head tiles (Triton), against attention_mla_decode (fused)\n")
    print("| model | batch | ctx | wave1: splits, us | wave2: splits, us | best TFLOP/s | best TB/s | predicted us | err best |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    by = {}
    for c in data["mla_cases"]:
        if c["ok"]:
            by.setdefault((c["model"], c["batch"], c["kv_len"]), {})[c["split_policy"]] = c
    errs = {}
    for (model, b, L), pol in sorted(by.items()):
        any_case = next(iter(pol.values()))
        p = mla_pred(binary, None, b, any_case["heads"], L)
        best = min(pol.values(), key=lambda v: v["median_s"])
        e = p / best["median_s"] - 1
        errs.setdefault(model, []).append(e)
        cells = " | ".join(f"{pol[k]['splits']}, {pol[k]['median_s'] * 1e6:.1f}" if k in pol else "-"
                           for k in ("wave1", "wave2"))
        print(f"| {model} | {b} | {L} | {cells} | {best['flops'] / best['median_s'] / 1e12:.0f} | "
              f"{best['bytes'] / best['median_s'] / 1e12:.2f} | {p * 1e6:.1f} | {e:+.1%} |")
    print("\n| model | cases | median abs err | median signed | max abs err |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for model, e in sorted(errs.items()):
        print(f"| {model} | {len(e)} | {med([abs(x) for x in e]):.1%} | {med(e):+.1%} | {max(abs(x) for x in e):.1%} |")

    print("\n## FlashMLA's published anchor (H800 SXM5) against perfmodel's H800 prediction\n")
    print("| heads | batch | ctx | predicted us | GB/s (latent read) | TFLOP/s |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for heads, b, L in ((16, 64, 8192), (16, 128, 32768), (128, 64, 8192), (128, 128, 32768)):
        p = mla_pred(binary, "h800", b, heads, L)
        flops = 2 * b * heads * L * (576 + 512)
        byts = 2 * b * L * 576
        print(f"| {heads} | {b} | {L} | {p * 1e6:.1f} | {byts / p / 1e9:.0f} | {flops / p / 1e12:.0f} |")
    print("\nFlashMLA (deepseek-ai/FlashMLA README, H800 SXM5, CUDA 12.8): up to 3000 GB/s memory-bound, "
          "580 TFLOP/s compute-bound.")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-moe-fused2",
         sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel")
