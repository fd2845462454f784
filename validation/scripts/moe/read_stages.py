#!/usr/bin/env python3
"""stagesweep's reading (probe_stages.py): each config's w13 and w2 against the fused profile's price under the same
config (`perfmodel decode --moe-config <a one-entry vLLM file>`), and each tile's time over the waves.

    python3 validation/scripts/moe/read_stages.py --prices <perfmodel binary> <card>   # before a run: the prices
    python3 validation/scripts/moe/read_stages.py --check-prices <perfmodel binary> <card>   # stagecheck's
    python3 validation/scripts/moe/read_stages.py --gm-prices <perfmodel binary> <card>      # gmcheck's
    python3 validation/scripts/moe/read_stages.py --check2-prices <perfmodel binary> <card>  # stagecheck2's
    python3 validation/scripts/moe/read_stages.py --queue-prices <perfmodel binary> <card>   # queuecheck's
    python3 validation/scripts/moe/read_stages.py <results dir holding stages.jsonl> <perfmodel binary> <card>
    python3 validation/scripts/moe/read_stages.py <results dir> <a committed prices_*.txt> <card>  # as committed
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_fused import moe_ops, run_json  # noqa: E402
from probe_stages import (CHECK2_MODELS, CHECK2_TOKENS, CHECK_MODELS, CHECK_TOKENS, CONFIGS,  # noqa: E402
                          GM_CONFIGS, GM_MODELS, GM_TOKENS, MODELS, QUEUE_CONFIGS, QUEUE_MODELS, QUEUE_TOKENS,
                          TOKENS)  # torch-free at import


def priced(binary, card, model, T, c):
    """w13, w2 (us) of `model` at T tokens under config c (BM, BN, BK, warps, stages[, GROUP_SIZE_M, else 1])."""
    BM, BN, BK, warps, stages = c[:5]
    entry = {str(T): dict(BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=c[5] if len(c) > 5 else 1,
                          num_warps=warps, num_stages=stages)}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(entry, f)
    try:
        d = run_json(binary, "decode", "--model", model, "--batch", str(T), "--ctx", "512", "--impl", "fused",
                     "--moe-config", f.name, card=card)
    finally:
        os.unlink(f.name)
    ops = moe_ops(d)
    return ops["experts.w13"][1] * 1e6, ops["experts.w2"][1] * 1e6


def quantile(v, q):
    """Linear interpolation between the sorted values, as perfmodel's stats.cpp (and so tests/) take it."""
    v = sorted(v)
    pos = q * (len(v) - 1)
    lo, hi = int(pos), min(len(v) - 1, int(pos) + 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def name(c):
    return f"{c[0]}x{c[1]}x{c[2]} w{c[3]} s{c[4]}" + (f" GM{c[5]}" if len(c) > 5 and c[5] != 1 else "")


def prices(binary, card, models=MODELS, tokens=TOKENS, configs=CONFIGS):
    print(f"card {card}: `perfmodel decode --model <model> --batch <tokens> --moe-config <one entry>` (us)\n")
    print("| model | tokens | config | priced w13 / w2 us |")
    print("| --- | ---: | --- | ---: |")
    for model in models:
        for T in tokens:
            for c in configs:
                w13, w2 = priced(binary, card, model, T, c)
                print(f"| {model} | {T} | {name(c)} | {w13:.1f} / {w2:.1f} |")


def committed(path):
    """A prices_*.txt table (prices() above): {(model, tokens, config name): (w13, w2) us}."""
    table = {}
    for line in open(path):
        cells = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[1].isdigit():
            w13, w2 = (float(x) for x in cells[3].split("/"))
            table[(cells[0], int(cells[1]), cells[2])] = (w13, w2)
    return table


def main(folder, binary, card):
    table = committed(binary) if binary.endswith(".txt") else None
    recs = [json.loads(l) for l in open(os.path.join(folder, "stages.jsonl")) if l.strip()]
    print("| model | tokens | config | K w13 / w2 | measured w13 / w2 us | us a tile w13 / w2 | priced w13 / w2 us "
          "| err w13 / w2 |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    errs = []
    for r in recs:
        if r["config"] != "sweep" or "error" in r:
            if "error" in r:
                print(f"| {r['model']} | {r['tokens']} | {r['BM']}x{r['BN']}x{r['BK']} w{r['warps']} s{r['stages']} "
                      f"| | failed: {r['error'][:60]} | | | |")
            continue
        c = (r["BM"], r["BN"], r["BK"], r["warps"], r["stages"], r.get("GM", 1))
        p13, p2 = table[(r["model"], r["tokens"], name(c))] if table else priced(binary, card, r["model"], r["tokens"], c)
        I, d = r["intermediate"], r["hidden"]
        row_blocks = r["padded_rows"] / r["BM"]
        tiles13, tiles2 = row_blocks * -(-2 * I // r["BN"]), row_blocks * -(-d // r["BN"])
        e13, e2 = p13 / r["w13_us"] - 1, p2 / r["w2_us"] - 1
        errs += [e13, e2]
        print(f"| {r['model']} | {r['tokens']} | {name(c)} | {d} / {I} | {r['w13_us']:.1f} / {r['w2_us']:.1f} "
              f"| {r['w13_us'] / (tiles13 / 132):.2f} / {r['w2_us'] / (tiles2 / 132):.2f} | {p13:.1f} / {p2:.1f} "
              f"| {100 * e13:+.1f} / {100 * e2:+.1f} % |")
    if errs:
        a = [abs(e) for e in errs]
        print(f"\nkernels {len(errs)}: median / p90 |error| {100 * quantile(a, 0.5):.1f} % / "
              f"{100 * quantile(a, 0.9):.1f} %")


if __name__ == "__main__":
    if sys.argv[1] == "--prices":
        prices(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "--check2-prices":
        prices(sys.argv[2], sys.argv[3], CHECK2_MODELS, CHECK2_TOKENS)
    elif sys.argv[1] == "--gm-prices":
        prices(sys.argv[2], sys.argv[3], GM_MODELS, GM_TOKENS, GM_CONFIGS)
    elif sys.argv[1] == "--queue-prices":
        prices(sys.argv[2], sys.argv[3], QUEUE_MODELS, QUEUE_TOKENS, QUEUE_CONFIGS)
    elif sys.argv[1] == "--check-prices":
        prices(sys.argv[2], sys.argv[3], CHECK_MODELS, CHECK_TOKENS)
    else:
        main(sys.argv[1], sys.argv[2], sys.argv[3])
