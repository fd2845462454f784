#!/usr/bin/env python3
"""MoE/MLA transformers steps (hf.json, probe/hf.json) against `perfmodel decode|prefill --impl eager`.

Usage: python3 validation/scripts/moe/compare_moe.py [results dir] [perfmodel binary] [calibration file]

Per step: wall against step.time_s, profiler kernel time against step.device_time_s, kernels per
step against step.launches, and the kernel time split into groups that both sides name the same
way (measured: run_moe.py's kernel categories and kernel names; predicted: the ops' `kernel`
field and names):
  grouped  torch._grouped_mm (CUTLASS grouped GEMM + prepare_grouped_gemm_data) | grouped_gemm ops
  gemm     cuBLAS nvjet/cutlass dense GEMMs                                     | gemm ops
  attn     SDPA kernels (cuDNN / flash)                                         | attention* ops
  cat      CatArrayBatchedCopy (torch.cat: KV cache, rotary halves, MLA keys)   | ops named *cat
  rest     everything else                                                      | everything else
Error = predicted / measured - 1; medians for decode and prefill, and for the fit set (Qwen3 and
DeepSeek decode) and the held-out set (Mixtral, every prefill). Steps with `cache_layout`
"contiguous" (validation/results/h200-moe-contiguous) are predicted with `--eager-cache contiguous`.
probe/hf.json's points (the same steps with the cache kept contiguous between steps, as in
generate()), where the folder has them, are compared last.

Usage: python3 validation/scripts/moe/compare_moe.py validation/results/h200-moe-contiguous [perfmodel]
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "production"))
import tempfile  # noqa: E402

from compare_hf import model_arg, pct  # noqa: E402

_TMP = tempfile.TemporaryDirectory()

GROUPS = ("grouped", "gemm", "attn", "cat", "rest")


# Fit set and held-out set (h200-moe README): the grouped_mm parameters were fitted on Qwen3's
# kernel cases only; the lowering's op list was read off Qwen3's and DeepSeek's decode steps.
# Mixtral's steps and every prefill step are held out.
def held_out(s):
    return s["model"] == "mixtral-8x7b" or s["phase"] == "prefill"


# Branch moe2: generic_operand_elements_per_s is fitted on Qwen3's and DeepSeek's prefill b1
# (validation/scripts/moe/fit_moe_glue.py); the 18 other steps are held out of it.
def moe2_fit(s):
    return s["phase"] == "prefill" and s["batch"] == 1 and s["model"] != "mixtral-8x7b"


SPLITS = (("moe2 fit (Qwen3 + DeepSeek prefill b1)", moe2_fit),
          ("moe2 held out (the 18 others)", lambda s: not moe2_fit(s)),
          ("Mixtral decode", lambda s: s["model"] == "mixtral-8x7b" and s["phase"] == "decode"),
          ("all", lambda s: True))


CALIBRATION = []  # ["--calibration", FILE] when the third argument names one


def predict(binary, phase, model, batch, ctx, cache="cropped"):
    # hf_decode.py's decode step attends ctx + 1 keys (a cache of ctx, the new token): perfmodel's --ctx
    # counts the new one (branch gemm10); a prefill is ctx tokens.
    # hf_grid.py ran Llama-2-7B's decode at ctx 4096, one position past its config (model_arg).
    model = model_arg({"model": model, "phase": phase, "ctx": ctx}, _TMP.name)
    ctx = ctx + 1 if phase == "decode" else ctx
    out = subprocess.run([binary, phase, "--model", model, "--card", "h200", "--batch", str(batch), "--ctx", str(ctx),
                          "--impl", "eager", "--eager-cache", cache, "--format", "json"] + CALIBRATION,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def predicted_groups(d):
    g = dict.fromkeys(GROUPS, 0.0)
    for o in d["ops"]:
        k, name = o["kernel"], o["name"]
        key = ("grouped" if k == "grouped_gemm" else "gemm" if k == "gemm" else "attn" if k.startswith("attention")
               else "cat" if name.endswith("cat") else "rest")
        g[key] += o["device_time_s"]
    return g


def measured_groups(s):
    c = s["kernel_by_category_s"]
    cat = sum(v for n, v in s["top_kernels_s"].items() if "CatArrayBatchedCopy" in n)
    g = dict(grouped=c.get("grouped_gemm", 0.0), gemm=c.get("gemm", 0.0), attn=c.get("attention", 0.0), cat=cat)
    g["rest"] = s["kernel_s"] - sum(g.values())
    return g


def main(folder, binary):
    steps = json.load(open(f"{folder}/hf.json"))["steps"]
    print("| step | wall | kernels | kernels/step | pred. wall | pred. device | pred. launches | wall err | "
          "kernel err | " + " | ".join(f"{g} meas/pred ms" for g in GROUPS) + " |")
    print("| --- " * (9 + len(GROUPS)) + "|")
    errs = {"decode": ([], []), "prefill": ([], [])}
    split = {"fit (Qwen3 + DeepSeek decode)": ([], []), "held out (Mixtral, every prefill)": ([], [])}
    gerr = {g: [] for g in GROUPS}
    extra = {name: ([], []) for name, _ in SPLITS}
    launches = []
    for s in steps:
        if not s.get("ok"):
            continue
        # h200-moe-contiguous: the cache kept contiguous between steps (hf.json `cache_layout`).
        d = predict(binary, s["phase"], s["model"], s["batch"], s["ctx"],
                    "contiguous" if s.get("cache_layout") == "contiguous" else "cropped")
        st = d["step"]
        we, ke = st["time_s"] / s["wall_s"] - 1, st["device_time_s"] / s["kernel_s"] - 1
        errs[s["phase"]][0].append(we)
        errs[s["phase"]][1].append(ke)
        part = split["held out (Mixtral, every prefill)" if held_out(s) else "fit (Qwen3 + DeepSeek decode)"]
        part[0].append(we)
        part[1].append(ke)
        for name, pick in SPLITS:
            if pick(s):
                extra[name][0].append(we)
                extra[name][1].append(ke)
        launches.append(st["launches"] / s["kernels_per_step"] - 1)
        pg, mg = predicted_groups(d), measured_groups(s)
        for g in GROUPS:
            gerr[g].append(pg[g] - mg[g])
        print(f"| {s['model']} {s['phase']} b{s['batch']} ctx{s['ctx']} | {s['wall_s'] * 1e3:.2f} ms | "
              f"{s['kernel_s'] * 1e3:.2f} ms | {s['kernels_per_step']:.0f} | {st['time_s'] * 1e3:.2f} ms | "
              f"{st['device_time_s'] * 1e3:.2f} ms | {st['launches']} | {we:+.0%} | {ke:+.0%} | "
              + " | ".join(f"{mg[g] * 1e3:.2f} / {pg[g] * 1e3:.2f}" for g in GROUPS) + " |")
    print()
    for phase, (w, k) in list(errs.items()) + list(split.items()) + list(extra.items()):
        wm, wp = pct(w)
        km, kp = pct(k)
        print(f"{phase}: {len(w)} steps; |wall err| median {wm:.1%} p90 {wp:.1%}; "
              f"|kernel err| median {km:.1%} p90 {kp:.1%}")
    lm, lp = pct(launches)
    print(f"kernels per step, predicted / measured - 1: median |err| {lm:.1%}, p90 {lp:.1%}, "
          f"range {min(launches):+.1%} .. {max(launches):+.1%}")
    print("summed over all steps, predicted - measured kernel time by group: "
          + ", ".join(f"{g} {sum(v) * 1e3:+.1f} ms" for g, v in gerr.items()))
    probe = f"{folder}/probe/hf.json"
    if os.path.exists(probe):
        print("\n| decode step | kernels, cropped cache | pred. cropped | err | kernels, contiguous cache "
              "| pred. contiguous | err |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for p in json.load(open(probe))["probe"]:
            dev = {c: predict(binary, "decode", p["model"], p["batch"], p["ctx"], c)["step"]["device_time_s"]
                   for c in ("cropped", "contiguous")}
            mc, mk = p["cropped_kernel_s"], p["contiguous_kernel_s"]
            print(f"| {p['model']} b{p['batch']} ctx{p['ctx']} | {mc * 1e3:.2f} ms | {dev['cropped'] * 1e3:.2f} ms | "
                  f"{dev['cropped'] / mc - 1:+.0%} | {mk * 1e3:.2f} ms | {dev['contiguous'] * 1e3:.2f} ms | "
                  f"{dev['contiguous'] / mk - 1:+.0%} |")


if __name__ == "__main__":
    if len(sys.argv) > 3:
        CALIBRATION[:] = ["--calibration", sys.argv[3]]
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-moe",
         sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel")
