#!/usr/bin/env python3
"""tunedmoe's reading (probe_tuned.py): per model and tokens, the grouped GEMMs under vLLM's default and tuned
configs, the tuned-over-default ratio, and the fused profile's price (the default config, `perfmodel decode --impl
fused` at batch = tokens: experts.w13 / experts.w2) against each.

    python3 validation/scripts/moe/read_tuned.py <results dir holding tuned.jsonl> [perfmodel binary] [card]
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_fused import moe_ops, run_json  # noqa: E402


def priced(binary, card, model, T):
    d = run_json(binary, "decode", "--model", model, "--batch", str(T), "--ctx", "512", "--impl", "fused", card=card)
    ops = moe_ops(d)
    return ops["experts.w13"][1] * 1e6, ops["experts.w2"][1] * 1e6


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
          "(sum) | priced w13 / w2 us | priced vs default | priced vs tuned | tuned correct |")
    print("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    err_default, err_tuned, ratios = [], [], []
    for (model, T), pair in sorted(by.items()):
        if "default" not in pair or "tuned" not in pair:
            continue
        d, t = pair["default"], pair["tuned"]
        pw13, pw2 = priced(binary, card, model, T)
        sd, st, sp = d["w13_us"] + d["w2_us"], t["w13_us"] + t["w2_us"], pw13 + pw2
        ratios.append(st / sd)
        err_default.append(sp / sd - 1)
        err_tuned.append(sp / st - 1)
        tile = lambda r: f"{r['BM']}x{r['BN']}x{r['BK']} w{r['warps']} s{r['stages']}"  # noqa: E731
        print(f"| {model} | {T} | {tile(d)} | {tile(t)} | {d['w13_us']:.1f} / {d['w2_us']:.1f} | "
              f"{t['w13_us']:.1f} / {t['w2_us']:.1f} | {st / sd:.3f} | {pw13:.1f} / {pw2:.1f} | {sp / sd - 1:+.1%} | "
              f"{sp / st - 1:+.1%} | {t.get('correct')} |")
    absd, abst = [abs(e) for e in err_default], [abs(e) for e in err_tuned]
    print(f"\npairs {len(ratios)}; tuned / default median {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f})")
    print(f"the fused price (default config) against the default's time: median / p90 |error| "
          f"{quantile(absd, 0.5):.1%} / {quantile(absd, 0.9):.1%}")
    print(f"the fused price (default config) against the tuned config's time: median / p90 |error| "
          f"{quantile(abst, 0.5):.1%} / {quantile(abst, 0.9):.1%}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel",
         sys.argv[3] if len(sys.argv) > 3 else "h200")
