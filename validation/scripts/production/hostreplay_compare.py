#!/usr/bin/env python3
"""Branch hostreplay: every compiled decode step on record priced with a calibration, wall / graph replay
and the host before the replay, signed errors, by set.

    python3 validation/scripts/production/hostreplay_compare.py BINARY [CALIBRATION]

h200-compiled2 (9 steps, all held out): time_s vs wall_s, host_time_s vs pre_replay_s;
h200-compiled (7; graph_call_host fitted on 0, 2, 4, 6): time_s vs device_s (the events hold the host);
h200-host-probe (4 compiled points; none fitted for the host): time_s vs device_s, host vs pre_replay_s.
"""
import json
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, "validation/scripts/production")
from compare_compiled import cut_model  # noqa: E402

R = "validation/results/"


def step(exe, cal, folder, s):
    cmd = [exe, "decode", "--model", cut_model(s["model"], s["layers"], folder), "--card", "h200", "--batch",
           str(s["batch"]), "--ctx", str(s["kv_len"]), "--impl", "compiled", "--format", "json"]
    if cal:
        cmd += ["--calibration", cal]
    return json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["step"]


def show(label, rows):
    e = sorted(abs(x[1]) for x in rows)
    print(f"{label}: |error| median {100 * statistics.median(e):.2f} %, max {100 * e[-1]:.2f} %, "
          f"mean signed {100 * statistics.mean(x[1] for x in rows):+.2f} %")
    for name, err, host in rows:
        print(f"    {name:28s} {100 * err:+7.2f} %" + (f"   host {host}" if host else ""))


def main():
    exe = sys.argv[1]
    cal = sys.argv[2] if len(sys.argv) > 2 else None
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for r in map(json.loads, open(R + "h200-compiled2/compiled2.jsonl")):
            p = step(exe, cal, tmp, r)
            rows.append((f"{r['model']} L{r['layers']} b{r['batch']}", p["time_s"] / r["wall_s"] - 1,
                         f"{p['host_time_s'] * 1e6:5.0f} / {r['pre_replay_s'] * 1e6:5.0f} us"))
        show("h200-compiled2, wall (all held out)", rows)
        steps = [s for s in json.load(open(R + "h200-compiled/hf.json"))["steps"] if s.get("ok")]
        rows = []
        for i, s in enumerate(steps):
            p = step(exe, cal, tmp, s)
            rows.append((f"{i} {'fit ' if i % 2 == 0 else 'held'} {s['model']} b{s['batch']}", p["time_s"] / s["device_s"] - 1, None))
        show("h200-compiled, graph replay, held out (1, 3, 5)", [x for x in rows if "held" in x[0]])
        show("h200-compiled, graph replay, fit (0, 2, 4, 6)", [x for x in rows if "fit" in x[0]])
        rows = []
        for r in map(json.loads, open(R + "h200-host-probe/probe.jsonl")):
            if r.get("mode") != "compiled":
                continue
            p = step(exe, cal, tmp, r)
            rows.append((f"{r['model']} L{r['layers']} b{r['batch']}", p["time_s"] / r["device_s"] - 1,
                         f"{p['host_time_s'] * 1e6:5.0f} / {r['pre_replay_s'] * 1e6:5.0f} us"))
        show("h200-host-probe, graph replay", rows)


if __name__ == "__main__":
    main()
