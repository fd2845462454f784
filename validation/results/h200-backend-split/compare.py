# Compares this set with ../h200 (same cases, same harness method, earlier binary):
#   python3 validation/results/h200-backend-split/compare.py
import json, statistics, os
here = os.path.dirname(os.path.abspath(__file__))
ref_dir = os.path.join(here, "..", "h200")
new = {c["name"]: c for c in json.load(open(os.path.join(here, "kernels.json")))["cases"]}
old = {c["name"]: c for c in json.load(open(os.path.join(ref_dir, "kernels.json")))["cases"]}
rep = {c["name"]: c for c in json.load(open(os.path.join(here, "..", "h200-repeat", "kernels.json")))["cases"]}
def group(name):
    for p in ["gemm_", "attn_decode_", "attn_prefill_fused_", "attn_prefill_unfused_"]:
        if name.startswith(p): return p.rstrip("_")
    return name.split("_bf16")[0].split("_fp16")[0].split("_fp32")[0]
print("kernel suite: %d cases here, %d in ../h200, %d in both" % (len(new), len(old), len(set(new) & set(old))))
print("  new/old = median_s here / median_s in ../h200; repeat = ../h200-repeat / ../h200 (two earlier runs)")
rows = {}
for n in sorted(set(new) & set(old)):
    a, b = new[n], old[n]
    if not (a["ok"] and b["ok"] and a["median_s"] > 0 and b["median_s"] > 0): continue
    rows.setdefault(group(n), []).append((a["median_s"] / b["median_s"], rep[n]["median_s"] / b["median_s"] if n in rep and rep[n]["median_s"] > 0 else None))
allr, allp = [], []
print("  %-24s %5s %10s %10s %10s %10s" % ("kind", "cases", "new/old", "|dev| p90", "repeat", "|dev| p90"))
for g, v in sorted(rows.items()):
    r = [x for x, _ in v]; p = [y for _, y in v if y]
    allr += r; allp += p
    q = lambda xs: sorted(abs(x - 1) for x in xs)[int(0.9 * (len(xs) - 1))] if xs else float("nan")
    print("  %-24s %5d %10.4f %9.1f%% %10.4f %9.1f%%" % (g, len(v), statistics.median(r), 100 * q(r), statistics.median(p) if p else float("nan"), 100 * q(p)))
q = lambda xs: sorted(abs(x - 1) for x in xs)[int(0.9 * (len(xs) - 1))]
print("  %-24s %5d %10.4f %9.1f%% %10.4f %9.1f%%" % ("all", len(allr), statistics.median(allr), 100 * q(allr), statistics.median(allp), 100 * q(allp)))
print("  correct here: %d/%d; same bytes and FLOPs per case as ../h200: %d/%d; same rotated bytes: %d/%d" % (
    sum(c["correct"] for c in new.values()), len(new),
    sum(new[n]["bytes"] == old[n]["bytes"] and new[n]["flops"] == old[n]["flops"] and new[n]["kernels_per_launch"] == old[n]["kernels_per_launch"] for n in set(new) & set(old)), len(set(new) & set(old)),
    sum(new[n]["rotated_bytes"] == old[n]["rotated_bytes"] and new[n]["buffer_sets"] == old[n]["buffer_sets"] for n in set(new) & set(old)), len(set(new) & set(old))))
s_new = json.load(open(os.path.join(here, "llama2-7b-decode-b16-ctx2048.json")))
s_old = json.load(open(os.path.join(ref_dir, "steps", "llama2-7b-decode-b16-ctx2048.json")))
print("\nstep llama2-7b decode b16 ctx2048 (perfmodel validate --on-gpu, through perfmodel-gpu):")
for k in ["measured_graph_s", "measured_sum_s"]:
    a, b = s_new["step"][k], s_old["step"][k]
    print("  %-18s here %9.1f us   ../h200/steps %9.1f us   ratio %.4f" % (k, a * 1e6, b * 1e6, a / b))
ops_old = {o["name"]: o for o in s_old["ops"]}
r = [o["measured_s"] / ops_old[o["name"]]["measured_s"] for o in s_new["ops"] if o.get("measured_s") and ops_old.get(o["name"], {}).get("measured_s")]
print("  per op measured here / earlier: %d ops, median %.4f, min %.4f, max %.4f" % (len(r), statistics.median(r), min(r), max(r)))
