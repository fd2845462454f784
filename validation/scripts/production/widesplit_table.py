"""cuDNN's split decode calls of a widesplit run, kernel by kernel: the replayed call, the split kernel and the merge
(torch.profiler's device times, kernel_split.json) against perfmodel's price of each (its --explain parts), and the
time outside both kernels. Markdown on stdout.

    python3 widesplit_table.py RESULTS BINARY [CARD]     # RESULTS: validation/results/<card>-widesplit or -x256check
"""
import json
import os
import re
import subprocess
import sys

SETS = ("widegroup", "widecheck", "wideprobe", "x256check")  # those present under RESULTS


def parts(binary, card, c):
    """(split kernel, merge) priced in us, from `perfmodel op --explain`'s device-time and fixed-part lines."""
    ex = subprocess.run([binary, "op", "--card", card, "--kind", "attention", "--batch", str(c["batch"]), "--heads",
                         str(c["heads"]), "--kv-heads", str(c["kv_heads"]), "--q-len", "1", "--kv-len",
                         str(c["kv_len"]), "--head-dim", str(c["head_dim"]), "--impl", "eager", "--explain"],
                        capture_output=True, text=True, check=True).stdout
    m = re.search(r"device time = fixed \+ max\(compute, memory\)\s+= ([\d.e+-]+) \+ max\(([\d.e+-]+), ([\d.e+-]+)\)", ex)
    fixed, compute, memory = (float(x) for x in m.groups())
    merge = sum(float(x) for x in re.findall(r"(?:merge\)|a split each\)|one a query row\)|the x256 kernel\)) ([\d.e+-]+) s", ex))
    return (fixed - merge + max(compute, memory)) * 1e6, merge * 1e6


def main():
    root, binary = sys.argv[1], sys.argv[2]
    card = sys.argv[3] if len(sys.argv) > 3 else "h100-sxm"
    print("| call | replayed (us) | split kernel: measured / priced (us) | merge: measured / priced (us) | outside both (us) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for s in (s for s in SETS if os.path.isdir(os.path.join(root, s))):
        with open(os.path.join(root, s, "kernel_split.json")) as f:
            kernels = {p["name"]: p["kernel_times_us"] for p in json.load(f)["profiles"]}
        with open(os.path.join(root, s, "kernels.json")) as f:
            cases = json.load(f)["cases"]
        for c in cases:
            k = kernels.get(c["name"])
            if not c["ok"] or c["implementation"] != "torch.sdpa.cudnn" or not k or len(k) != 2:
                continue
            split, merge = parts(binary, card, c)
            call = c["measured_s"] * 1e6
            print(f"| b{c['batch']} x {c['heads']} / {c['kv_heads']} x {c['kv_len']} d{c['head_dim']} | {call:.1f} | "
                  f"{k[0][1]:.1f} / {split:.1f} | {k[1][1]:.2f} / {merge:.2f} | {call - k[0][1] - k[1][1]:.2f} |")


if __name__ == "__main__":
    main()
