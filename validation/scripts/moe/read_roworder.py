#!/usr/bin/env python3
"""roworder's reading (probe_roworder.py): per model and tokens, the default tile's w13 / w2 kernel times under the
align's, sorted and shuffled row orders, each over the align's, and the fused price (`perfmodel decode --impl fused
--moe-config default`, routed rows: it prices one order, whichever the mechanism it follows).

    python3 validation/scripts/moe/read_roworder.py <results dir holding order.jsonl> [perfmodel binary] [card]
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_fused import moe_ops, run_json  # noqa: E402


def main(folder, binary=None, card="h100-sxm"):
    recs = [json.loads(line) for line in open(os.path.join(folder, "order.jsonl"))]
    key = lambda r: (r["model"], r["tokens"], r.get("BM"), r.get("BN"), r.get("BK"), r.get("stages"), r.get("spread", 1))
    base = {key(r): r for r in recs if r["order"] == "align"}
    print("| model | tokens | tile, spread | order | w13 us | w2 us | w13 / align | w2 / align | max diff w13 / w2 | priced w13 / w2 us |")
    print("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | --- | ---: |")
    for r in recs:
        b = base[key(r)]
        price = ""
        if binary and r["order"] == "align" and r.get("spread", 1) == 1 and r.get("BM") in (None, 64) and r.get("BK") in (None, 32):
            d = run_json(binary, "decode", "--model", r["model"], "--batch", str(r["tokens"]), "--ctx", "512", "--impl",
                         "fused", card=card)
            ops = moe_ops(d)
            price = f"{ops['experts.w13'][1] * 1e6:.0f} / {ops['experts.w2'][1] * 1e6:.0f}"
        tile = f"{r.get('BM')}x{r.get('BN')}x{r.get('BK')} s{r.get('stages')}, {r.get('spread', 1)}"
        print(f"| {r['model']} | {r['tokens']} | {tile} | {r['order']} | {r['w13_us']:.0f} | {r['w2_us']:.0f} | "
              f"{r['w13_us'] / b['w13_us']:.3f} | {r['w2_us'] / b['w2_us']:.3f} | "
              f"{r['w13_max_diff']:.2g} / {r['w2_max_diff']:.2g} | {price} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
