#!/usr/bin/env python3
"""tp_decode.csv (TP=1 and TP=2 decode steps on 2 x H200) against `perfmodel decode --tp T`.

Usage: python3 validation/scripts/nccl/compare_tp.py [tp_decode.csv] [perfmodel binary]

Prints the Markdown table of validation/results/h200x2-tp/README.md and the medians that
tests/test_parallel_accuracy.cpp guards. Error = predicted / measured - 1. Llama-2-13B at ctx 8192
is priced with max_position_embeddings raised to 8192 (a models/*.yaml copy), as the measurement
ran it (the script has no rotary embedding).
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


def median(v):
    v = sorted(abs(x) for x in v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2 if v else 0.0


def model_arg(key, ctx, tmp):
    path = os.path.join(ROOT, "models", f"{key}.yaml")
    text = open(path).read()
    m = re.search(r"^max_position_embeddings:\s*(\d+)", text, re.M)
    if m and int(m.group(1)) < ctx:
        text = re.sub(r"^max_position_embeddings:\s*\d+", f"max_position_embeddings: {ctx}", text, flags=re.M)
        path = os.path.join(tmp, f"{key}-{ctx}.yaml")
        open(path, "w").write(text)
    return path if path.startswith(tmp) else key


def main(path, binary):
    rows = list(csv.DictReader(open(path)))
    pred, meas = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows:
            key = (r["model"], int(r["batch"]), int(r["ctx"]))
            tp = int(r["tp"])
            out = subprocess.run([binary, "decode", "--model", model_arg(r["model"], key[2], tmp), "--card", "h200",
                                  "--batch", str(key[1]), "--ctx", str(key[2]), "--tp", str(tp), "--format", "json"],
                                 capture_output=True, text=True, check=True)
            pred[key + (tp,)] = json.loads(out.stdout)["step"]["time_s"]
            meas[key + (tp,)] = float(r["time_s"])
    print("| model | batch | ctx | TP=1 measured | TP=1 predicted | TP=2 measured | TP=2 predicted | TP=2 error "
          "| ratio measured | ratio predicted | ratio error |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    tp2, tp1, ratio = [], [], []
    keys = sorted({k[:3] for k in meas}, key=lambda k: (k[0], k[1], k[2]))
    ms = lambda v: f"{v * 1e3:.3f} ms"
    for k in keys:
        m1, p1 = meas.get(k + (1,)), pred.get(k + (1,))
        m2, p2 = meas.get(k + (2,)), pred.get(k + (2,))
        cells = [k[0], str(k[1]), str(k[2]), ms(m1) if m1 else "—", ms(p1) if p1 else "—"]
        if m1:
            tp1.append(p1 / m1 - 1)
        if m2:
            tp2.append(p2 / m2 - 1)
            cells += [ms(m2), ms(p2), f"{p2 / m2 - 1:+.1%}"]
        else:
            cells += ["—", "—", "—"]
        if m1 and m2:
            rm, rp = m2 / m1, p2 / p1
            ratio.append(rp / rm - 1)
            cells += [f"{rm:.3f}", f"{rp:.3f}", f"{rp / rm - 1:+.1%}"]
        else:
            cells += ["—", "—", "—"]
        print("| " + " | ".join(cells) + " |")
    print(f"\nTP=2 steps: {len(tp2)}, median abs error {median(tp2):.1%}; TP=2/TP=1 ratio: {len(ratio)} pairs, "
          f"median {median(ratio):.1%}; TP=1 steps: {len(tp1)}, median {median(tp1):.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200x2-tp/tp_decode.csv",
         sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel")
