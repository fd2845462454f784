#!/usr/bin/env python3
"""Branches hostmod2 / hostaten: the eager host time per top-level ATen op, fitted.

Usage: python3 validation/scripts/production/fit_host_aten.py [perfmodel binary] [calibration] [--model M]

Counts per step come from the binary itself (the eager lowering's Op::aten_launching_calls(),
aten_other_calls() and module_calls, validation/results/h200-hostmod2/counts.jsonl): the step's host
time priced under scratch calibrations that set one rate to 1 us and the others to 0 (host_per_aten
for the ATen ops that launch, host_per_aten_view for those that launch nothing, host_per_module per
nn.Module call), and step.launches (the kernels). The fit: host-bound decode steps (wall >= 2 x
kernel time) of the FIT halves the tests use -- h200-production's even steps
(test_profile_accuracy) and h200-moe's Qwen3-30B-A3B and DeepSeek-V2-Lite decode steps
(test_moe_accuracy's fit set) -- wall ~ sum of rate x count, least squares on the relative error,
every rate >= 0. Models (--model, default all printed; the last line of each names the keys):
  one      hostmod2: one rate per ATen op (launching or not)
  split    hostaten: launching ATen op, ATen op that launches nothing
  split+m  the split and a rate per nn.Module call
  ratio    the split with host_per_aten_view / host_per_aten held at what hostmod2's probe measured
           on one lease (probe_view_ratio), one scale fitted
  split+k  the split and a rate per kernel a launching call launches beyond its first (sort 5,
           topk / softmax / histc / cumsum / _grouped_mm 2: MoE's composite calls); printed only
Everything else is held out and printed as a check (h200-production's odd steps, h200-hf-grid,
h200-moe's Mixtral, h200-moe-sync, h200-moe-contiguous) and the check sets h200-heldout16..21/hf
(never fitted).
"""
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
SETS = ["h200-production/hf.json", "h200-hf-grid/hf.json", "h200-moe/hf.json", "h200-moe-sync/hf.json",
        "h200-moe-contiguous/hf.json", "h200-heldout16/hf/hf.json", "h200-heldout17/hf/hf.json",
        "h200-heldout18/hf/hf.json", "h200-heldout19/hf/hf.json", "h200-heldout20/hf/hf.json",
        "h200-heldout21/hf/hf.json"]
MODELS = {"one": ("L+V",), "split": ("L", "V"), "split+m": ("L", "V", "M"), "ratio": ("L+rV",), "split+k": ("L", "V", "K")}
KEYS = {"L": "host_per_aten", "V": "host_per_aten_view", "M": "host_per_module", "L+V": "host_per_aten",
        "L+rV": "scale", "K": "per extra kernel of a launching call"}


def scratch(cal_text, aten_us, view_us, module_us, folder, name):
    text = re.sub(r"^(\s*)host_per_kernel:.*$",
                  lambda m: (f"{m.group(1)}host_per_aten: {aten_us} us\n{m.group(1)}host_per_aten_view: {view_us} us\n"
                             f"{m.group(1)}host_per_module: {module_us} us"),
                  cal_text, count=1, flags=re.M)
    path = os.path.join(folder, name)
    open(path, "w").write(text)
    return path


def step_json(binary, cal, s):
    ctx = s["ctx"] + (1 if s["phase"] == "decode" else 0)
    args = [binary, s["phase"], "--model", s["model"], "--card", "h200", "--batch", str(s["batch"]), "--ctx", str(ctx),
            "--impl", "eager", "--format", "json", "--calibration", cal]
    args += ["--eager-cache", "contiguous" if s.get("cache_layout") == "contiguous" else "cropped"]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)["step"]


def is_fit(folder, i, s):
    if folder == "h200-production":
        return i % 2 == 0
    if folder == "h200-moe":
        return s["model"] != "mixtral-8x7b" and s["phase"] == "decode"
    return False


def solve(a, b):
    """Gaussian elimination for a small dense system."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-30:
            return None
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def nnls_rel(rows, terms):
    """min sum (sum_k x_k c_k / w - 1)^2, x >= 0: every active set, the best feasible one."""
    best = None
    for k in range(1, len(terms) + 1):
        for act in itertools.combinations(terms, k):
            feats = [[r["c"][t] / r["s"]["wall_s"] for t in act] for r in rows]
            ata = [[sum(f[i] * f[j] for f in feats) for j in range(k)] for i in range(k)]
            atb = [sum(f[i] for f in feats) for i in range(k)]
            x = solve(ata, atb)
            if x is None or min(x) < 0:
                continue
            sol = {t: 0.0 for t in terms}
            sol.update(dict(zip(act, x)))
            res = sum((sum(sol[t] * r["c"][t] for t in terms) / r["s"]["wall_s"] - 1) ** 2 for r in rows)
            if best is None or res < best[1]:
                best = (sol, res)
    return best[0]


def probe_view_ratio():
    """What a non-launching ATen call costs against a launching one on ONE lease and process:
    hostmod2's probe (validation/results/h200-hostmod2/counts.jsonl), per decoder layer (3-layer
    minus 2-layer decode step, module hooks on), wall ~ a x launching + v x other, least squares
    on the relative error over the four dense and two MoE models (Qwen3-30B-A3B left out: its
    3-layer wall's quartiles span 0.9 ms). Returns v / a."""
    recs = [json.loads(x) for x in open(os.path.join(ROOT, "validation/results/h200-hostmod2/counts.jsonl"))]
    by = {(r["model"], r["layers"], r["phase"]): r for r in recs}
    rows = []
    for m in sorted({r["model"] for r in recs} - {"qwen3-30b-a3b"}):
        a, b = by[(m, 2, "decode")], by[(m, 3, "decode")]
        launching = b["aten_top_launching"] - a["aten_top_launching"]
        other = b["aten_top"] - a["aten_top"] - launching
        rows.append(dict(s={"wall_s": (b["wall_s"] - a["wall_s"]) * 1e6}, c={"L": launching, "V": other}))
    sol = nnls_rel(rows, ("L", "V"))
    print(f"probe, per decoder layer ({len(rows)} models, one lease): launching {sol['L']:.2f} us, "
          f"other {sol['V']:.2f} us, ratio {sol['V'] / sol['L']:.3f}")
    return sol["V"] / sol["L"]


def collect(binary, cal_path):
    cal_text = open(cal_path).read()
    cal_text = re.sub(r"^\s*host_per_(aten|aten_view|module):.*\n", "", cal_text, flags=re.M)
    tmp = tempfile.TemporaryDirectory()
    cals = {"L": scratch(cal_text, 1, 0, 0, tmp.name, "l.yaml"), "V": scratch(cal_text, 0, 1, 0, tmp.name, "v.yaml"),
            "M": scratch(cal_text, 0, 0, 1, tmp.name, "m.yaml")}
    rows = []
    for rel in SETS:
        folder = rel.split("/")[0]
        path = os.path.join(ROOT, "validation/results", rel)
        if not os.path.exists(path):
            continue
        for i, s in enumerate(json.load(open(path))["steps"]):
            if not s.get("ok"):
                continue
            c = {}
            for t, cal in cals.items():
                st = step_json(binary, cal, s)
                if st is None:
                    break
                c[t] = st["host_time_s"] * 1e6
                c["R"] = st["launches"]
            else:
                c["L+V"] = c["L"] + c["V"]
                rows.append(dict(set=folder, i=i, s=s, c=c, fit=is_fit(folder, i, s)))
    return rows


def main(binary, cal_path, only=None):
    rows = collect(binary, cal_path)
    hb = [r for r in rows if r["s"]["phase"] == "decode" and r["s"]["wall_s"] >= 2 * r["s"]["kernel_s"]]
    fit = [r for r in hb if r["fit"]]
    ratio = probe_view_ratio()
    for r in rows:
        r["c"]["L+rV"] = r["c"]["L"] + ratio * r["c"]["V"]
        r["c"]["K"] = max(r["c"]["R"] - r["c"]["L"], 0)
    for name, terms in MODELS.items():
        if only and name != only:
            continue
        sol = nnls_rel(fit, terms)
        if name == "ratio":
            print(f"== ratio: host_per_aten {sol['L+rV'] * 1e6:.2f} us, host_per_aten_view "
                  f"{sol['L+rV'] * ratio * 1e6:.2f} us (the probe's ratio {ratio:.3f}, one parameter fitted)")
        print(f"== {name}: fit on {len(fit)} host-bound decode steps: " +
              ", ".join(f"{KEYS[t]} {sol[t] * 1e6:.2f} us" for t in terms))
        per_set = {}
        for r in hb:
            pred = sum(sol[t] * r["c"][t] for t in terms)
            e = pred / r["s"]["wall_s"] - 1
            per_set.setdefault((r["set"], r["fit"]), []).append(e)
        for (folder, f), es in sorted(per_set.items()):
            es = sorted(abs(x) for x in es)
            print(f"   {folder:20s} {'fit ' if f else 'held'} {len(es):2d} host-bound decode: host alone median "
                  f"{es[(len(es) - 1) // 2]:.1%}, max {es[-1]:.1%}")
    if only is None:
        for r in hb:
            s, c = r["s"], r["c"]
            print(f"  {r['set']:20s} {r['i']:2d} {'fit ' if r['fit'] else 'held'} {s['model']:18s} b{s['batch']:<4d} "
                  f"ctx{s['ctx']:<6d} launching {c['L']:6.0f} other {c['V']:5.0f} mod {c['M']:5.0f} kernels {c['R']:5.0f} "
                  f"wall {s['wall_s'] * 1e3:7.2f} ms  wall/aten {s['wall_s'] * 1e6 / c['L+V']:5.2f} us")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--model")]
    only = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--model=")), None)
    main(args[0] if args else "build/tools/perfmodel/perfmodel",
         args[1] if len(args) > 1 else "hardware/h200.calibration.yaml", only)
