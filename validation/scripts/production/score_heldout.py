#!/usr/bin/env python3
"""Score one held-out heldoutNN folder per group, as docs/targets.md does (targets.py's fresh_models), and name the
largest misses of each group with their shapes.

Usage: python3 validation/scripts/production/score_heldout.py <results folder> [perfmodel binary] [card]

card: the catalogue card the set ran on (default h200; h100-sxm carries the H200's file to the H100). Every case is
held out (nothing is fitted on such a set). Prints targets.py's table for the folder, then per group the median /
p90 |predicted / measured - 1| and the three largest |errors| (signed), then compare_hf.py's wall rows priced with
the committed calibration (host_per_aten: walls before any profiler) beside targets.py's [DRAGGED] per-kernel rate.
Nothing is fitted; nothing is written.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import targets  # noqa: E402  (its helpers: Kernels, cudnn_decode_errors, hf_rows, summary, fresh_models)


def show(name, items, k=3):
    """items: (signed error, label). Prints n, median / p90 |error| and the k largest |errors|."""
    if not items:
        print(f"{name}: no cases")
        return
    n, med, p90 = targets.summary([e for e, _ in items])
    worst = sorted(items, key=lambda x: -abs(x[0]))[:k]
    print(f"{name}: {n} cases, median {100 * med:.1f} %, p90 {100 * p90:.1f} %; largest: "
          + "; ".join(f"{lab} {100 * e:+.1f} %" for e, lab in worst))


def main(folder, binary, card):
    folder = folder.rstrip("/")
    path = folder + "/kernels.json"
    print("## targets.py's rows (fresh_models)\n")
    print("\n".join(targets.fresh_models(binary, folder, "-", card=card).markdown()))
    print("\n## per group, largest misses (every case held out)\n")
    s = targets.Kernels(binary, path, False, card=card)

    def cases(profile, keep):
        return [(c["error"], c["name"]) for c in s.cases if c["profile"] == profile and keep(c)]

    show("attention prefill, cuDNN (fused profile)", cases("fused", lambda c: c["kernel"] == "attention_prefill_fused"))
    import json
    dec = [c for c in json.load(open(path))["cases"]
           if c["kernel"] == "attention_decode" and c["implementation"] == "torch.sdpa.cudnn" and c["ok"]]
    errs = targets.cudnn_decode_errors(binary, path, False, card=card)
    show("attention decode, cuDNN (`perfmodel op --impl eager` per case)", list(zip(errs, [c["name"] for c in dec])))
    for kind, what in (("attention_prefill_flash2", "attention prefill, FlashAttention-2"),
                       ("attention_decode_flash2", "attention decode, FlashAttention-2")):
        show(what, cases("eager", lambda c, kind=kind: c["kernel"] == kind))
    for p in ("fused", "eager", "compiled"):
        show(f"GEMMs, {p} profile", cases(p, targets.is_gemm))
    show("row ops, eager", cases("eager", targets.is_small))
    show("row ops, compiled", cases("compiled", targets.is_small))
    print("\n## compare_hf.py walls: [DRAGGED] (targets.py's row) and the committed calibration (host_per_aten)\n")
    for label, cal in (("[DRAGGED]", targets.DRAGGED), ("committed", None)):
        rows = targets.hf_rows(binary, folder + "/hf/hf.json", False, cal, card=card)
        for ph in ("decode", "prefill"):
            w = [x for p, x, _ in rows if p == ph]
            k = [x for p, _, x in rows if p == ph]
            n, wm, wp = targets.summary(w)
            _, km, kp = targets.summary(k)
            print(f"{label} {ph}: {n} steps; wall median {100 * wm:.1f} % p90 {100 * wp:.1f} % (signed "
                  + ", ".join(f"{100 * x:+.0f}" for x in w) + f"); kernels median {100 * km:.1f} % p90 {100 * kp:.1f} % "
                  "(signed " + ", ".join(f"{100 * x:+.0f}" for x in k) + ")")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "build/tools/perfmodel/perfmodel",
         sys.argv[3] if len(sys.argv) > 3 else "h200")
