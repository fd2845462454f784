#!/usr/bin/env python3
"""Every torch.sdpa.cudnn decode case of the committed decode sets, priced as targets.py's
cudnn_decode_errors prices them (`perfmodel op --kind attention --impl eager`, harness_idle off each
floor), with its CTAs, split, kernel names and read rate; then median / p90 per set (held out: the odd
cases of the three fitted sets, every case of h200-heldout17 / 18). Branch decodeattn.

Usage: python3 validation/scripts/production/decodeattn_cases.py [perfmodel]
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from targets import summary  # noqa: E402

SETS = (("h200-production", True), ("h200-cudnn-decode", True), ("h200-heldout16", True),
        ("h200-heldout17", False), ("h200-heldout18", False))


def main(binary):
    for name, fitted in SETS:
        cases = json.load(open(f"validation/results/{name}/kernels.json"))["cases"]
        held = []
        print(f"== {name}")
        for i, c in enumerate(cases):
            if c["kernel"] != "attention_decode" or c["implementation"] != "torch.sdpa.cudnn" or not c["ok"]:
                continue
            op = json.loads(subprocess.run(
                [binary, "op", "--card", "h200", "--kind", "attention", "--batch", str(c["batch"]), "--heads",
                 str(c["heads"]), "--kv-heads", str(c["kv_heads"]), "--q-len", "1", "--kv-len", str(c["kv_len"]),
                 "--head-dim", str(c["head_dim"]), "--impl", "eager", "--format", "json"],
                capture_output=True, text=True, check=True).stdout)
            e = op["device_time_s"] / c["measured_s"] - 1
            group = max(1, c["heads"] // c["kv_heads"])
            ctas = c["batch"] * c["kv_heads"] * -(-group // 16)
            kinds = "+lean_reduction" if len(c["kernel_names"]) > 1 else ""
            tile = "64x64" if "knob_3_" in c["kernel_names"][0] else "16x128"
            tag = "fit " if fitted and i % 2 == 0 else "held"
            print(f"  {i:4d} {tag} b{c['batch']:4d} h{c['heads']:3d}/{c['kv_heads']:<3d} d{c['head_dim']:3d} "
                  f"L{c['kv_len']:6d} CTAs {ctas:5d} {tile}{kinds:15s} {c['measured_s'] * 1e6:8.2f} us "
                  f"{c['bytes'] / c['measured_s'] / 1e12:5.2f} TB/s  {e:+6.1%}")
            if tag == "held":
                held.append(e)
        n, med, p90 = summary(held)
        print(f"  held out: {n} cases, median {med:.1%}, p90 {p90:.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel")
