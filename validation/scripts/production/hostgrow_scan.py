#!/usr/bin/env python3
"""Does the transformers eager decode host grow with batch or cache size? (branch hostgrow)

    python3 validation/scripts/production/hostgrow_scan.py [perfmodel binary]

Over every committed hf.json decode step with a contiguous cache (h200-hf-grid, h200-moe-sync,
the h200-heldout16..21 check sets: read, nothing fitted), the wall against `perfmodel decode
--impl eager`'s host time: host-bound steps (predicted kernels <= 0.7 x predicted host) give
r = wall / predicted wall, the host's excess. Prints each step, then Spearman's rank correlation
of r with batch, context and KV-cache bytes, and per model whether r rises with batch.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
sys.path.insert(0, HERE)
from compare_hf import model_arg, priced_ctx  # noqa: E402


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2
        i = j + 1
    return r


def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den if den else 0.0


def main(binary):
    files = [os.path.join(ROOT, "validation/results", f) for f in ("h200-hf-grid/hf.json", "h200-moe-sync/hf.json")]
    files += sorted(glob.glob(os.path.join(ROOT, "validation/results/h200-heldout*/hf/hf.json")))
    tmp = tempfile.mkdtemp()
    rows = []
    for f in files:
        for s in json.load(open(f))["steps"]:
            if s["phase"] != "decode" or not s.get("ok") or s.get("cache_layout") != "contiguous":
                continue
            o = subprocess.run([binary, "decode", "--model", model_arg(s, tmp), "--card", "h200", "--batch",
                                str(s["batch"]), "--ctx", str(priced_ctx(s)), "--impl", "eager", "--eager-cache",
                                "contiguous", "--format", "json"], capture_output=True, text=True, cwd=ROOT)
            if o.returncode:
                continue
            st = json.loads(o.stdout)["step"]
            if st["device_time_s"] > 0.7 * st["host_time_s"]:
                continue
            y = open(os.path.join(ROOT, "models", f"{s['model']}.yaml")).read()
            get = lambda k: int(next(l.split(":")[1].split("#")[0] for l in y.splitlines() if l.startswith(k + ":")))
            kv = 2 * get("num_hidden_layers") * s["batch"] * get("num_key_value_heads") * s["ctx"] * get("head_dim") * 2
            rows.append(dict(set=f.split("/")[-3] if "heldout" in f else f.split("/")[-2], model=s["model"],
                             b=s["batch"], ctx=s["ctx"], kv=kv, r=s["wall_s"] / st["time_s"]))
    print("| set | model | batch | ctx | KV GB | wall / predicted |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['set']} | {r['model']} | {r['b']} | {r['ctx']} | {r['kv'] / 1e9:.2f} | {r['r']:.2f} |")
    rs = [r["r"] for r in rows]
    print(f"\n{len(rows)} host-bound steps; Spearman rho of wall / predicted with batch "
          f"{spearman([r['b'] for r in rows], rs):+.2f}, with ctx {spearman([r['ctx'] for r in rows], rs):+.2f}, "
          f"with KV bytes {spearman([r['kv'] for r in rows], rs):+.2f}")
    slow = [r for r in rows if r["r"] > 1.3]
    print(f"steps over 1.3 x: {len(slow)}: " + ", ".join(f"{r['model']} b{r['b']} ctx{r['ctx']} {r['r']:.2f}" for r in slow))
    up = down = 0
    by = {}
    for r in rows:
        by.setdefault((r["set"], r["model"]), []).append(r)
    for v in by.values():
        v.sort(key=lambda r: r["b"])
        for a, b in zip(v, v[1:]):
            if b["r"] > a["r"] * 1.05:
                up += 1
            elif b["r"] < a["r"] / 1.05:
                down += 1
    print(f"consecutive batches of one model (same run): r up > 5 % {up}, down > 5 % {down}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/tools/perfmodel/perfmodel"))
