#!/usr/bin/env python3
"""Branch moe11: the fused profile's top-k at decode (few tokens) on wide routers, against
h200-moe8's, h200-moe10's and h200-moe11's cases at T <= 64.

Usage: python3 validation/scripts/moe/fit_moe11_topk.py [perfmodel binary] [calibration] [before binary]

lib/src/kernels/moe_topk.cpp prices a decode top-k as the rounds' shuffle chain (k x 213 cycles,
fit_moe_routing.py on h200-moe-fused2's 9 fit decode layers) plus a lone warp's local work: its
per-element PTX instructions n (6 k + 8) (n = EP / 32, at least 1) at 2 cycles each (4 schedulers x
the 0.50 SM cycles a PTX instruction moe10's term fits at prefill), after the programs at the SMs'
fixed CTA rate, in a max with the programs' issue. The check printed first: a free fit of the cycles a local instruction costs, over
h200-moe8's 256 x 8 decode (T = 1, 64), = median of (measured - the binary's price without the local
work) x clock / (n (6 k + 8)). Every other case is held out; h200-moe11's were predicted before the
run (its README), by an earlier form of the same mechanism (12 cycles an element a round and a
softmax round, 214-cycle rounds).
"""
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_moe10_topk import CLOCK, ROOT, local_cycles, model_args, priced  # noqa: E402

SETS = ("h200-moe8", "h200-moe10", "h200-moe11")
PREDICTED = {("1024e-k8", 1): 3.62, ("1024e-k8", 64): 3.84, ("512e-k2", 1): 1.51, ("256e-k2", 1): 1.37,
             ("64e-k16", 1): 2.94, ("qwen3-30b-a3b", 1): 2.09, ("qwen3-next-512e", 1): 3.16}  # us, run_moe11.py


def main(binary, calibration, before):
    tmp = tempfile.mkdtemp(prefix="moe11-")
    rows = []
    for s in SETS:
        for c in json.load(open(os.path.join(ROOT, "validation", "results", s, "hf.json")))["routing_cases"]:
            if not c.get("ok") or c["tokens"] > 64:
                continue
            margs = model_args(c, tmp)
            rows.append(dict(s=s, c=c, m=c["topk_softmax_s"]["median"], p=priced(binary, calibration, margs, c["tokens"]),
                             p0=priced(before, calibration, margs, c["tokens"]) if before else None,
                             fit=s == "h200-moe8" and c["experts"] == 256))
    # The free fit: the local work binds the max at these T (one program an SM at most).
    per = []
    for r in rows:
        if r["fit"]:
            E, k = r["c"]["experts"], r["c"]["top_k"]
            ep = 1 << (E - 1).bit_length()
            n_instr = max(1, ep / 32) * (6 * k + 8)
            without = r["p"] - local_cycles(E, k) / CLOCK
            per.append((r["m"] - without) * CLOCK / n_instr)
    print(f"# free fit over {len(per)} cases: {statistics.median(per):.2f} cycles a local PTX instruction "
          f"(committed 2 = 4 schedulers x 0.50)\n")
    print("| set | model | E | k | T | fit | top-k us | priced | err | before | predicted before the run |")
    print("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    groups = {}
    for r in rows:
        c, e = r["c"], r["p"] / r["m"] - 1
        e0 = r["p0"] / r["m"] - 1 if r["p0"] else None
        pred = PREDICTED.get((c["model"], c["tokens"])) if r["s"] == "h200-moe11" else None
        tag = "fit" if r["fit"] else "held out"
        pred_s = "" if pred is None else f"{pred:.2f} ({pred / (r['m'] * 1e6) - 1:+.1%})"
        print(f"| {r['s']} | {c['model']} | {c['experts']} | {c['top_k']} | {c['tokens']} | {tag} | {r['m'] * 1e6:.2f} | "
              f"{r['p'] * 1e6:.2f} | {e:+.1%} | {'' if e0 is None else f'{e0:+.1%}'} | "
              f"{pred_s} |")
        wide = "E>128" if c["experts"] > 128 else "E<=128"
        for key in ((tag, wide), (tag, "all"), (r["s"], tag, wide)):
            groups.setdefault(key, []).append((e, e0))
    print()
    for key in sorted(groups):
        v = groups[key]
        a = sorted(abs(e) for e, _ in v)
        line = f"- {' '.join(key)}: {statistics.median(a):.1%} median, {a[-1]:.1%} max ({len(a)})"
        if v[0][1] is not None:
            b = sorted(abs(e0) for _, e0 in v)
            line += f"; before {statistics.median(b):.1%} / {b[-1]:.1%}"
        print(line)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/tools/perfmodel/perfmodel"),
         sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "hardware/h200.calibration.yaml"),
         sys.argv[3] if len(sys.argv) > 3 else None)
