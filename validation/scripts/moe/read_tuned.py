#!/usr/bin/env python3
"""tunedmoe's reading (probe_tuned.py): per model and tokens, the grouped GEMMs under vLLM's default and tuned
configs, the tuned-over-default ratio, and the fused profile's prices (`perfmodel decode --impl fused` at batch =
tokens: experts.w13 / experts.w2): without a file (vLLM's default config) against the default's time, and with
`--moe-config` (the tuned file, probe_tuned.MODELS) against the tuned config's time.

    python3 validation/scripts/moe/read_tuned.py <results dir holding tuned.jsonl> [perfmodel binary] [card]
    python3 validation/scripts/moe/read_tuned.py --prices [perfmodel binary] [card]   # the prices alone, before a run
    python3 validation/scripts/moe/read_tuned.py --ncu <results dir holding ncu.txt>     # occupancy: Nsight vs derived
    python3 validation/scripts/moe/read_tuned.py --check-prices <perfmodel binary> <card> [tokens]  # tunedcheck's models
    python3 validation/scripts/moe/read_tuned.py --h100-prices <perfmodel binary> <card> [tokens, comma separated]
                                                                                  # tunedh100: vLLM's H100 files
    python3 validation/scripts/moe/read_tuned.py --auto-prices <perfmodel binary> <card> <tokens, comma separated>
                                                         [layouts, comma separated]
                                                         # autocheck: AUTO_LAYOUTS under --tp, auto and default
    python3 validation/scripts/moe/read_tuned.py --score <results dir> <prices file>...    # stored prices vs a run
"""
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_fused import moe_ops, run_json  # noqa: E402

CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "hardware", "vllm-fused-moe")
TUNED_FILES = {"mixtral-8x7b": "E=8,N=14336,device_name=NVIDIA_H200.json",
               "qwen3-30b-a3b": "E=128,N=768,device_name=NVIDIA_H200.json"}
# tunedcheck: the same files on models they were not tuned for (probe_tuned.CHECK_MODELS)
CHECK_FILES = {"mixtral-8x22b": "E=8,N=14336,device_name=NVIDIA_H200.json",
               "qwen3-235b-a22b": "E=128,N=768,device_name=NVIDIA_H200.json",
               "deepseek-v2-lite": "E=128,N=768,device_name=NVIDIA_H200.json"}
FILES = {**TUNED_FILES, **CHECK_FILES}
# tunedh100: vLLM's own H100 files (probe_tuned.H100_FILES)
H100_FILES = {"qwen3-30b-a3b": "E=128,N=768,device_name=NVIDIA_H100_80GB_HBM3.json",
              "mixtral-8x7b": "E=8,N=14336,device_name=NVIDIA_H100_80GB_HBM3.json",
              "deepseek-v2-lite": "E=64,N=1408,device_name=NVIDIA_H100_80GB_HBM3.json"}


def priced(binary, card, model, T, tuned=False, file=None):
    """`file`: the tuned file a run's record names (probe_tuned.py's `file`); else the model's in FILES. An autocheck
    layout (AUTO_LAYOUTS) is priced as a user asks for it, `--tp` with `--moe-config auto`, whose pick must be the file
    the run measured."""
    if model in AUTO_LAYOUTS:
        w13, w2, picked = auto_priced(binary, card, model, T, tuned)
        if tuned and file and picked != file:
            raise SystemExit(f"{model} at {T} tokens: --moe-config auto took {picked}, the run measured {file}")
        return w13, w2
    extra = ["--moe-config", os.path.join(CONFIGS, file or FILES[model])] if tuned else []
    d = run_json(binary, "decode", "--model", model, "--batch", str(T), "--ctx", "512", "--impl", "fused", *extra,
                 card=card)
    ops = moe_ops(d)
    return ops["experts.w13"][1] * 1e6, ops["experts.w2"][1] * 1e6


# autocheck: probe_tuned.AUTO_LAYOUTS' names -> (catalogue model, tensor-parallel GPUs), priced as a user asks for
# them: `decode --tp` with `--moe-config auto` (the file vLLM ships, as the CLI finds it) and `default`.
AUTO_LAYOUTS = {"mixtral-8x7b-tp2": ("mixtral-8x7b", 2), "mixtral-8x7b-tp4": ("mixtral-8x7b", 4),
                "mixtral-8x22b-tp4": ("mixtral-8x22b", 4), "qwen3-30b-a3b-tp2": ("qwen3-30b-a3b", 2),
                "qwen3-235b-a22b-tp8": ("qwen3-235b-a22b", 8),
                "mixtral-8x7b-tp8": ("mixtral-8x7b", 8), "mixtral-8x22b-tp8": ("mixtral-8x22b", 8),
                "qwen3-235b-a22b-tp2": ("qwen3-235b-a22b", 2)}


def auto_priced(binary, card, name, T, auto):
    """One GPU's w13 / w2 (us) of an AUTO_LAYOUTS layout at T tokens, and the file `auto` took."""
    model, tp = AUTO_LAYOUTS[name]
    d = run_json(binary, "decode", "--model", model, "--tp", str(tp), "--batch", str(T), "--ctx", "512", "--impl",
                 "fused", "--moe-config", "auto" if auto else "default", card=card)
    ops = moe_ops(d)
    return ops["experts.w13"][1] * 1e6, ops["experts.w2"][1] * 1e6, os.path.basename(
        d["inputs"]["workload"].get("moe_config", "(default config)"))


def auto_prices(binary, card, tokens, layouts=None):
    """The autocheck price table (the --score format), written before a run measures it: `layouts` (default every
    AUTO_LAYOUTS name)."""
    print(f"card {card}: `decode --tp <tp> --moe-config default` and `--moe-config auto` (the file named)\n")
    print("| layout | tokens | priced default w13 / w2 us | priced tuned (--moe-config auto) w13 / w2 us | tuned / default |"
          " file |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name in layouts or AUTO_LAYOUTS:
        for T in tokens:
            pw13, pw2, _ = auto_priced(binary, card, name, T, False)
            tw13, tw2, f = auto_priced(binary, card, name, T, True)
            print(f"| {name} | {T} | {pw13:.1f} / {pw2:.1f} | {tw13:.1f} / {tw2:.1f} | {(tw13 + tw2) / (pw13 + pw2):.3f} |"
                  f" {f} |")


def quantile(v, q):
    v = sorted(v)
    if not v:
        return float("nan")
    x = q * (len(v) - 1)
    i = int(x)
    return v[i] if i + 1 >= len(v) else v[i] + (x - i) * (v[i + 1] - v[i])


def main(folder, binary, card):
    rows = [json.loads(line) for line in open(os.path.join(folder, "tuned.jsonl"))]
    by = {}
    for r in rows:
        by.setdefault((r["model"], r["tokens"]), {})[r["config"]] = r
    print("| model | tokens | default tile | tuned tile | default w13 / w2 us | tuned w13 / w2 us | tuned / default "
          "(sum) | priced default w13 / w2 us | err | priced tuned w13 / w2 us | err | default price vs tuned | "
          "tuned correct |")
    print("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    err_default, err_tuned, err_cross, ratios = [], [], [], []
    for (model, T), pair in sorted(by.items()):
        if "default" not in pair or "tuned" not in pair:
            continue
        d, t = pair["default"], pair["tuned"]
        pw13, pw2 = priced(binary, card, model, T)
        tw13, tw2 = priced(binary, card, model, T, tuned=True, file=t.get("file"))
        sd, st, sp, spt = d["w13_us"] + d["w2_us"], t["w13_us"] + t["w2_us"], pw13 + pw2, tw13 + tw2
        ratios.append(st / sd)
        err_default.append(sp / sd - 1)
        err_tuned.append(spt / st - 1)
        err_cross.append(sp / st - 1)
        tile = lambda r: f"{r['BM']}x{r['BN']}x{r['BK']} w{r['warps']} s{r['stages']}"  # noqa: E731
        print(f"| {model} | {T} | {tile(d)} | {tile(t)} | {d['w13_us']:.1f} / {d['w2_us']:.1f} | "
              f"{t['w13_us']:.1f} / {t['w2_us']:.1f} | {st / sd:.3f} | {pw13:.1f} / {pw2:.1f} | {sp / sd - 1:+.1%} | "
              f"{tw13:.1f} / {tw2:.1f} | {spt / st - 1:+.1%} | {sp / st - 1:+.1%} | {t.get('correct')} |")
    absd, abst, absx = ([abs(e) for e in err_default], [abs(e) for e in err_tuned], [abs(e) for e in err_cross])
    print(f"\npairs {len(ratios)}; tuned / default median {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f})")
    print(f"the fused price (default config) against the default's time: median / p90 |error| "
          f"{quantile(absd, 0.5):.1%} / {quantile(absd, 0.9):.1%}")
    print(f"the tuned file's price (--moe-config) against the tuned config's time: median / p90 |error| "
          f"{quantile(abst, 0.5):.1%} / {quantile(abst, 0.9):.1%}")
    print(f"the default price against the tuned config's time (what a vLLM user there would see without the file): "
          f"median / p90 |error| {quantile(absx, 0.5):.1%} / {quantile(absx, 0.9):.1%}")


def prices(binary, card, models=TUNED_FILES, tokens=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048)):
    """The default and tuned prices per model and tokens; `models`: model -> its tuned file."""
    print("| model | tokens | priced default w13 / w2 us | priced tuned (--moe-config) w13 / w2 us | tuned / default |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for model in models:
        for T in tokens:
            pw13, pw2 = priced(binary, card, model, T)
            tw13, tw2 = priced(binary, card, model, T, tuned=True, file=models[model])
            print(f"| {model} | {T} | {pw13:.1f} / {pw2:.1f} | {tw13:.1f} / {tw2:.1f} | {(tw13 + tw2) / (pw13 + pw2):.3f} |")


def score(folder, price_files):
    """Stored price tables (--prices / --check-prices) against a run's times: per file, the default prices against the
    default config's times and the tuned prices against the tuned configs' (w13 + w2 a pair), median / p90 |error|."""
    rows = [json.loads(line) for line in open(os.path.join(folder, "tuned.jsonl"))]
    meas = {(r["model"], r["tokens"], r["config"]): r["w13_us"] + r["w2_us"] for r in rows}
    print("| prices | pairs | default: median / p90 | tuned: median / p90 |")
    print("| --- | ---: | ---: | ---: |")
    for path in price_files:
        errs = {"default": [], "tuned": []}
        for line in open(path):
            cells = [c.strip() for c in line.split("|")[1:-1]]
            if len(cells) not in (5, 6) or not cells[1].isdigit():  # 6: auto_prices' file column
                continue
            model, T = cells[0], int(cells[1])
            for config, cell in (("default", cells[2]), ("tuned", cells[3])):
                if (model, T, config) in meas:
                    errs[config].append(abs(sum(float(x) for x in cell.split("/")) / meas[(model, T, config)] - 1))
        d, t = errs["default"], errs["tuned"]
        print(f"| {os.path.basename(path)} | {len(t)} | {quantile(d, 0.5):.1%} / {quantile(d, 0.9):.1%} | "
              f"{quantile(t, 0.5):.1%} / {quantile(t, 0.9):.1%} |")


def derived_ctas(r):
    """The CTAs an SM fused_moe_cost.cpp's tuned_config derives for a config (sm90: 64 warps, 32 blocks, 227 KiB of
    shared memory, 64 K registers; buffers of (BLOCK_M + BLOCK_N) x BLOCK_K bf16 elements, `stages` of them for a
    tile whose BLOCK_M is a multiple of 64, `stages - 1` below (since h100-tunedmoe); the fp32
    accumulator over the threads plus 32, rounded to 8): (by warps, by shared memory, by registers, registers a
    thread)."""
    threads = 32 * r["warps"]
    buffers = r["stages"] if r["BM"] % 64 == 0 else max(1, r["stages"] - 1)
    stage_bytes = (r["BM"] + r["BN"]) * r["BK"] * 2 * buffers
    regs = min(255, (32 + -(-r["BM"] * r["BN"] // threads) + 7) // 8 * 8)
    return 64 // r["warps"], 227 * 1024 // stage_bytes, 65536 // (threads * regs), regs


# Nsight Compute's units, to SI (bytes, seconds, hertz); a metric without a unit is a count or a percentage.
NCU_UNITS = {"us": 1e-6, "ms": 1e-3, "ns": 1e-9, "s": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
             "byte/block": 1.0, "Kbyte/block": 1e3, "hz": 1.0, "Khz": 1e3, "Mhz": 1e6, "Ghz": 1e9, "%": 1.0}


def ncu_sections(path):
    """Nsight Compute's reports in launch order: {metric: value in SI units} a _fused_moe_gemm_kernel launch."""
    out, cur = [], None
    for line in open(path):
        if "_fused_moe_gemm_kernel (" in line:
            cur = {}
            out.append(cur)
        elif cur is not None and re.match(r"^\s+[a-z0-9_]+__", line):
            parts = line.split()  # metric [unit] value; Nsight scales bytes to a readable unit
            unit = parts[1] if len(parts) > 2 else ""
            if parts[-1] != "n/a":  # a metric the kernel has no value for (a pipe it does not use)
                cur[parts[0]] = float(parts[-1].replace(",", "")) * NCU_UNITS.get(unit, 1.0)
    return out


def occupancy(folder):
    path = os.path.join(folder, "ncu.txt")
    # probe_tuned.py --once prints a record per (model, tokens, config) after its two launches (w13, w2), in order.
    recs = [json.loads(line) for line in open(path) if line.startswith("{")]
    kernels = ncu_sections(path)
    launches = [(r, g) for r in recs for g in ("w13", "w2")]
    print("| model | tokens | config | GEMM | tile | regs (ncu / derived) | smem KiB | limit regs / smem / warps (ncu) | "
          "CTAs an SM ncu | derived (warps, smem, regs) | derived | priced |")
    print("| --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    agree = 0
    for (r, g), k in zip(launches, kernels):
        w, sm, rg, regs = derived_ctas(r)
        ncu = min(k.get("launch__occupancy_limit_registers", 99), k.get("launch__occupancy_limit_shared_mem", 99),
                  k.get("launch__occupancy_limit_warps", 99), k.get("launch__occupancy_limit_blocks", 99))
        derived = min(w, sm, rg, 32)
        agree += int(ncu == derived)
        # What the price uses: vllm_default_config's 16 (by warps) and 8 (Nsight, h200-moe6) without a file.
        priced_ctas = (16 if r["BM"] == 16 else 8) if r["config"] == "default" else derived
        print(f"| {r['model']} | {r['tokens']} | {r['config']} | {g} | {r['BM']}x{r['BN']}x{r['BK']} w{r['warps']} "
              f"s{r['stages']} | {k.get('launch__registers_per_thread', 0):.0f} / {regs} | "
              f"{k.get('launch__shared_mem_per_block_dynamic', 0) / 1024:.1f} | "  # bytes -> KiB
              f"{k.get('launch__occupancy_limit_registers', 0):.0f} / {k.get('launch__occupancy_limit_shared_mem', 0):.0f}"
              f" / {k.get('launch__occupancy_limit_warps', 0):.0f} | {ncu:.0f} | {w}, {sm}, {rg} | {derived} | {priced_ctas} |")
    print(f"\nkernels {len(kernels)} (launches expected {len(launches)}); the derived CTAs an SM equal Nsight's in "
          f"{agree} of {min(len(kernels), len(launches))}")


if __name__ == "__main__" and sys.argv[1:2] == ["--ncu"]:
    occupancy(sys.argv[2])
elif __name__ == "__main__" and sys.argv[1:2] == ["--score"]:
    score(sys.argv[2], sys.argv[3:])
elif __name__ == "__main__" and sys.argv[1:2] == ["--h100-prices"]:
    prices(sys.argv[2], sys.argv[3], H100_FILES,
           *([tuple(int(t) for t in sys.argv[4].split(","))] if len(sys.argv) > 4 else []))
elif __name__ == "__main__" and sys.argv[1:2] == ["--auto-prices"]:
    auto_prices(sys.argv[2], sys.argv[3], tuple(int(t) for t in sys.argv[4].split(",")),
                sys.argv[5].split(",") if len(sys.argv) > 5 else None)
elif __name__ == "__main__" and sys.argv[1:2] == ["--check-prices"]:
    prices(sys.argv[2], sys.argv[3], CHECK_FILES,
           *([tuple(int(t) for t in sys.argv[4].split(","))] if len(sys.argv) > 4 else []))
elif __name__ == "__main__" and sys.argv[1:2] == ["--prices"]:
    prices(sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel", sys.argv[3] if len(sys.argv) > 3 else "h200")
elif __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel",
         sys.argv[3] if len(sys.argv) > 3 else "h200")
