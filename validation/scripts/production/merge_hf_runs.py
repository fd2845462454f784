#!/usr/bin/env python3
"""Merges hf_grid.py's per-process folders OUT/hf_<model>/ (one model a process) into OUT/hf/hf.json and
OUT/hf/run.log, each step marked with its process, and removes the folders (a device call brings back at most 8
files). Used by validation/results/h200-hostlease/run*.sh.

    python3 validation/scripts/production/merge_hf_runs.py OUT
"""
import glob
import json
import os
import shutil
import sys


def main(out):
    steps, meta, log = [], None, []
    for d in sorted(glob.glob(f"{out}/hf_*")):
        if os.path.exists(f"{d}/hf.json"):
            j = json.load(open(f"{d}/hf.json"))
            meta = meta or j["meta"]
            for s in j["steps"]:
                s["process"] = os.path.basename(d)
            steps += j["steps"]
        if os.path.exists(f"{d}/run.log"):
            log.append(f"== {os.path.basename(d)}\n" + open(f"{d}/run.log").read())
        shutil.rmtree(d)
    os.makedirs(f"{out}/hf", exist_ok=True)
    json.dump(dict(meta=meta, steps=steps), open(f"{out}/hf/hf.json", "w"), indent=1)
    open(f"{out}/hf/run.log", "w").write("".join(log))
    print(f"{len(steps)} steps")


if __name__ == "__main__":
    main(sys.argv[1])
