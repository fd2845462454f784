#!/usr/bin/env python3
"""h200-moe-fused (the production stand-ins) against the `fused` profile.

Usage: python3 validation/scripts/moe/compare_fused.py [results dir] [perfmodel binary]

(a) MLA decode: each Triton case against `perfmodel op --kind attention_mla_decode --impl fused`
    (batch, heads, kv-len, head-dim 576). Error = predicted / measured - 1 per split policy, and
    for the faster of the two policies at each point (what an engine tuning its splits reaches).
(b) MoE layer: the CUDA-graph replay of one layer against the fused profile's MoE ops of one layer
    (`perfmodel decode|prefill --impl fused`: the ops of the first MoE layer's router and experts
    nodes, device time / count), and the torch._grouped_mm kernels (profiler) against the
    grouped_gemm ops alone.
Nothing is fitted here.
"""
import json
import os
import statistics
import subprocess
import sys


# The card the layers ran on: h200 unless PERFMODEL_CARD names another (an H100's: h100-sxm, the H200's calibration
# carried to it).
CARD = os.environ.get("PERFMODEL_CARD", "h200")


def run_json(binary, *args, card=None):
    """perfmodel's JSON. A whole model that does not fit the card (Mixtral-8x7B's 93 GB on an 80 GB H100) still prints
    its step, exit code 2: its one layer is what is compared. PERFMODEL_CALIBRATION: another calibration file (a
    trial price set), carried to the card as `--calibration` carries it."""
    cal = ["--calibration", os.environ["PERFMODEL_CALIBRATION"]] if os.environ.get("PERFMODEL_CALIBRATION") else []
    # Every fused_moe set here ran vLLM's default config (vllm_style_moe.default_config) unless a record names a tuned
    # file, which its caller passes as --moe-config: price the default explicitly, since the CLI's `auto` takes
    # vLLM's shipped file wherever the catalogue holds one (hardware/vllm-fused-moe).
    if args and args[0] in ("decode", "prefill", "ops", "sweep-batch") and "--moe-config" not in args:
        args = (*args, "--moe-config", "default")
    out = subprocess.run([binary, *args, "--card", card or CARD, *cal, "--format", "json"], capture_output=True, text=True)
    if out.returncode not in (0, 2) or not out.stdout.strip() or (out.returncode == 2 and "does not fit" not in out.stderr):
        raise RuntimeError(f"perfmodel {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def mla_predicted(binary, c):
    d = run_json(binary, "op", "--kind", "attention_mla_decode", "--batch", str(c["batch"]), "--heads",
                 str(c["heads"]), "--kv-heads", "1", "--kv-len", str(c["kv_len"]), "--head-dim", str(c["head_dim"]), "--impl", "fused")
    return d["device_time_s"] if "device_time_s" in d else d["ops"][0]["device_time_s"]


def moe_ops(d, key="device_time_s"):
    """The fused step's MoE ops of one layer: router + experts (+ shared experts), per call.
    key: device_time_s (the kernels) or time_s (with the GPU's idle between kernels in a graph)."""
    out = {}
    for o in d["ops"]:
        if o["name"].startswith(("router.", "experts.", "shared_")):
            out[o["name"]] = (o["kernel"], o[key] / max(1, o.get("count", 1)))
    return out


def med(v):
    return statistics.median(v) if v else float("nan")


def main(folder, binary):
    data = json.load(open(os.path.join(folder, "hf.json")))
    print("## MLA decode (Triton split-KV, absorbed) against attention_mla_decode (fused)\n")
    print("| model | batch | ctx | fill: splits, us | splits4: us | predicted us | err fill | err splits4 | err best |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    by = {}
    for c in data["mla_cases"]:
        if c["ok"]:
            by.setdefault((c["model"], c["batch"], c["kv_len"]), {})[c["split_policy"]] = c
    errs = {}
    for (model, b, L), pol in sorted(by.items()):
        any_case = next(iter(pol.values()))
        p = mla_predicted(binary, any_case)
        row = {k: p / v["median_s"] - 1 for k, v in pol.items()}
        best = p / min(v["median_s"] for v in pol.values()) - 1
        for k, e in list(row.items()) + [("best", best)]:
            errs.setdefault((model, k), []).append(e)
        f, s4 = pol.get("fill"), pol.get("splits4")
        print(f"| {model} | {b} | {L} | {f['splits']}, {f['median_s'] * 1e6:.1f} | {s4['median_s'] * 1e6:.1f} | "
              f"{p * 1e6:.1f} | {row['fill']:+.1%} | {row['splits4']:+.1%} | {best:+.1%} |")
    print("\n| model | policy | cases | median |err| | median signed | max |err| |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for (model, k), e in sorted(errs.items()):
        print(f"| {model} | {k} | {len(e)} | {med([abs(x) for x in e]):.1%} | {med(e):+.1%} | "
              f"{max(abs(x) for x in e):.1%} |")

    print("\n## MoE layer (CUDA graph) against the fused profile's MoE ops of one layer\n")
    print("| model | phase | tokens | measured us | predicted us | err | grouped kernels us | predicted grouped us | err grouped | kernels measured / predicted |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    layer_errs, grouped_errs = [], []
    for c in data["moe_cases"]:
        if not c["ok"]:
            continue
        phase, T = c["phase"], c["tokens"]
        args = (["decode", "--batch", str(T), "--ctx", "512"] if phase == "decode"
                else ["prefill", "--batch", "1", "--ctx", str(T)])
        ops = moe_ops(run_json(binary, *args, "--model", c["model"], "--impl", "fused"))
        pred = sum(t for _, t in ops.values())
        pred_g = sum(t for k, t in ops.values() if k == "grouped_gemm")
        meas_g = sum(x["device_s"] for x in c["kernel_device_s"] if "cutlass" in x["name"] and "Group" in x["name"]
                     or "grouped" in x["name"].lower())
        n_meas = sum(x["calls_per_layer"] for x in c["kernel_device_s"])
        e, eg = pred / c["median_s"] - 1, pred_g / meas_g - 1
        layer_errs.append((c["model"], phase, e))
        grouped_errs.append(eg)
        print(f"| {c['model']} | {phase} | {T} | {c['median_s'] * 1e6:.1f} | {pred * 1e6:.1f} | {e:+.1%} | "
              f"{meas_g * 1e6:.1f} | {pred_g * 1e6:.1f} | {eg:+.1%} | {n_meas:.0f} / {len(ops)} |")
    dec = [abs(e) for _, p, e in layer_errs if p == "decode"]
    print(f"\nMoE layer |err|: decode {len(dec)} points median {med(dec):.1%}, max {max(dec):.1%}; "
          f"all {len(layer_errs)} median {med([abs(e) for *_, e in layer_errs]):.1%}; "
          f"grouped GEMM kernels alone median {med([abs(e) for e in grouped_errs]):.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-moe-fused",
         sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel")
