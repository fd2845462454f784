#!/usr/bin/env python3
"""Device run of the `eltwise7` task (issue 10): the two autotune candidates of Inductor's looped
layer_norm / softmax at 2049-4096 columns, as a call runs them and as the autotuner ranks them.

    cd validation/scripts/production && python3 eltwise7.py OUT_DIR

For each generated looped reduction of h200-eltwise4, -eltwise5 and -eltwise6 (inductor_code.json)
of 2049-4096 columns and at most 1000 rows, the Triton kernel is exec'd as Inductor wrote it
(eltwise5.py's prepare: its @triton_heuristics decorator builds the candidates) and each candidate is
  - timed alone with harness.py's method (eltwise5.py's time_configs: the fp32 check, CUDA-graph
    replay over rotating inputs, DRAM-fed): `measured_s`, and
  - ranked five times, alternating, by Inductor's own benchmarker (torch._inductor.runtime.
    benchmarking.benchmarker.benchmark_gpu, rep 40, the call CachingAutotuner.bench makes) on one
    input: `autotune_s` (each figure), `autotune_wins` (how often it was the faster).
-> OUT_DIR/configs.json (`reductions`, not a result suite). The run of 2026-12-01 sent this body
inline (the device's copy of the tree lacked the file); the code is the same.
"""
import json
import sys

sys.path.insert(0, ".")
import torch  # noqa: E402
import eltwise5 as E5  # noqa: E402
import harness as H  # noqa: E402
from torch._inductor.runtime.benchmarking import benchmarker as B  # noqa: E402
from concurrent.futures import ThreadPoolExecutor as P  # noqa: E402
import torch._inductor.runtime.triton_heuristics  # noqa: E402,F401  (once, before the threads)
import torch._inductor.runtime.triton_helpers  # noqa: E402,F401

torch.cuda.set_device(0)
H.init()
es, seen = [], set()
for s in ["h200-eltwise4", "h200-eltwise5", "h200-eltwise6"]:
    for e in json.load(open("../../results/" + s + "/inductor_code.json"))["reductions"]:
        if e["kernel"] != "rmsnorm" and 2048 < e["cols"] <= 4096 and e["rows"] <= 1000 and e["name"] not in seen:
            seen.add(e["name"])
            e["source"] = s
            es.append(e)
pool = P(12)  # Triton's compiles in threads (eltwise5.py)
fs = [pool.submit(E5.prepare, e) for e in es]
out = {"meta": {"device": H.device_meta(), "torch": torch.__version__}, "reductions": []}
for e, f in zip(es, fs):
    p = f.result()
    _, n, k, ints = p
    r = E5.time_configs(p, 0.1, print)  # alone, DRAM-fed
    r["source"] = e["source"]
    x = E5.make_inputs(e["kernel"], e["rows"], e["cols"])
    cs = [(lambda c=c: k.fn[((ints[0] + c.kwargs["XBLOCK"] - 1) // c.kwargs["XBLOCK"], 1, 1)](
        *x, *ints, **dict(c.kwargs), num_warps=c.num_warps, num_stages=c.num_stages)) for c in k.configs]
    ru = [[] for _ in cs]
    for j in range(5):
        for i, c in enumerate(cs):
            ru[i].append(B.benchmark_gpu(c, rep=40) * 1e-3)  # ms -> s
    for i, (cd, t) in enumerate(zip(r["candidates"], ru)):
        cd["autotune_s"] = t
        cd["autotune_wins"] = sum(min(range(len(cs)), key=lambda q: ru[q][j]) == i for j in range(5))
    print(e["name"], [(cd["config"].get("R0_BLOCK"), round(cd.get("measured_s", 0) * 1e6, 2),
                       [round(v * 1e6, 2) for v in cd["autotune_s"]]) for cd in r["candidates"]], flush=True)
    out["reductions"].append(r)
    json.dump(out, open(sys.argv[1] + "/configs.json", "w"), indent=1)
