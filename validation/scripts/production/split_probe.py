#!/usr/bin/env python3
"""Inductor's split row reductions, kernel by kernel (issue 10, branch splitred). torch.compile (static
shapes) splits F.rms_norm / F.layer_norm / torch.softmax over fewer than 2 x 132 rows of more than 8192
columns into a partial reduction, a combine and a pointwise normalize (softmax: two partial + combine
pairs, max then the sum of exps; lib/src/cost/stream_cost.cpp, inductor_split_cost). The model prices
each kernel from its parts with no parameter of its own; across the hidden sets it prices rms_norm
-3..-30 % and softmax +5..+46 %. This times each kernel: per case, one call on each of S rotating input
sets (S x the input's bytes > 2.5 x L2: every call DRAM-fed, as harness.py's sets), all S calls in one
CUDA graph, one replay under torch.profiler; each kernel's name, duration, grid and block, and the
gap before it, for every call. Correctness: the compiled op against the fp32 reference on one set.

Each kernel also carries the config its CachingAutotuner kept (XBLOCK, R0_BLOCK, warps: the modules the case
loaded) and the trace's registers a thread and shared memory.

Usage: python3 validation/scripts/production/split_probe.py OUT [BUDGET_S]     # OUT/split_probe.jsonl
       python3 validation/scripts/production/split_probe.py OUT BUDGET_S grid2  # OUT/split_probe2.jsonl (GRID2)
       python3 validation/scripts/production/split_probe.py OUT BUDGET_S repeat # OUT/split_probe_repeat.jsonl
       python3 validation/scripts/production/split_probe.py OUT BUDGET_S grid3  # OUT/split_probe3.jsonl (SHAPES3)
"""
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import eager_ops as eo  # noqa: E402

BF16 = torch.bfloat16
L2 = 60 * 2 ** 20
ROWS = (4, 16, 48, 128, 250)
COLS = (9216, 16384, 28672, 45056)
KERNELS = ("rmsnorm", "softmax_fused", "layernorm")
# the second call's grid (h200-splitred/split_probe2.jsonl): other rows and widths, 263 rows the last that split
GRID2 = ((2, 8, 24, 70, 100, 180, 263), (8320, 10240, 12800, 20480, 36864, 65536))
# branch splitodd's call (h200-splitodd/split_probe3.jsonl): which chunks Triton loads slowly. Chunks L = ceil(cols /
# splits) that do or do not divide the row ("ragged"), with L a multiple of 16, of 8 only, even or odd, the row a
# multiple of 8 throughout: 100352 / 13 (ragged, L 7720 = 8 x 965), 100360 / 13 (L 7720, not ragged), 100456 / 13
# (ragged, L 7728 = 16 x 483), 30008 / 4 (L 7502, even, not ragged), 58408 / 8 (L 7301, odd, not ragged); one CTA
# an SM (8 rows) and several (64-128 rows).
SHAPES3 = [(8, 100352), (64, 100352), (8, 100360), (64, 100360), (8, 100456), (64, 100456), (8, 30008), (128, 30008),
           (8, 58408), (100, 58408)]


def inputs(kernel, rows, cols):
    x = torch.randn(rows, cols, device="cuda", dtype=BF16)
    if kernel == "softmax_fused":
        return (torch.rand(rows, cols, device="cuda", dtype=BF16) * 2 - 1,)
    w = torch.rand(cols, device="cuda", dtype=BF16) + 0.5
    if kernel == "rmsnorm":
        return (x, w)
    return (x, w, torch.randn(cols, device="cuda", dtype=BF16))


def loaded_modules():
    from torch._inductor.codecache import PyCodeCache
    mods = getattr(PyCodeCache, "modules", None) or list(getattr(PyCodeCache, "cache", {}).values())
    return list(mods)


def kept_configs(before):
    """{Triton kernel: the config its CachingAutotuner kept} over the modules this case loaded."""
    out = {}
    try:
        for mod in loaded_modules():
            if id(mod) in before:
                continue
            for attr in dir(mod):
                obj = getattr(mod, attr, None)
                if attr.startswith("triton_") and getattr(obj, "launchers", None):
                    c = obj.launchers[0].config
                    out[attr] = {**dict(c.kwargs), "num_warps": c.num_warps, "num_stages": c.num_stages}
    except Exception as e:  # the times stand without the configs
        out["error"] = repr(e)[:200]
    return out


def trace(g):
    g.replay()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        g.replay()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    prof.export_chrome_trace(path)
    ev = json.load(open(path)).get("traceEvents", [])
    os.remove(path)
    ks = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    out, prev = [], None
    for e in ks:
        a = e.get("args", {})
        out.append([e["name"][:80], round(e["dur"], 3), round(e["ts"] - prev, 3) if prev is not None else 0.0,
                    a.get("grid"), a.get("block"), a.get("registers per thread"), a.get("shared memory")])
        prev = e["ts"] + e["dur"]
    return out


def case(kernel, rows, cols):
    torch._dynamo.reset()
    before = {id(m) for m in loaded_modules()}
    fn = torch.compile(eo.OPS[kernel][0], dynamic=False)
    ref = eo.OPS[kernel][1]
    nbytes = rows * cols * 2 * (2 if kernel != "layernorm" else 2)
    sets = max(4, min(512, int(2.5 * L2 / nbytes) + 1))
    data = [inputs(kernel, rows, cols) for _ in range(sets)]
    got = fn(*data[0]).float()
    want = ref(*[t.float() for t in data[0]])
    err = float((got - want).abs().max() / want.pow(2).mean().sqrt().clamp_min(1e-30))
    configs = kept_configs(before)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for d in data[:3]:
            fn(*d)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for d in data:
            fn(*d)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(5):
        start.record()
        g.replay()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e-3 / sets)
    ks = trace(g)
    per_call = len(ks) // sets if sets else 0
    # the kernels of one call, by position: name, grid, block, median duration and gap over the calls
    kernels = []
    for i in range(per_call):
        col = ks[i::per_call]
        kernels.append(dict(name=col[0][0], grid=col[0][3], block=col[0][4], registers=col[0][5], smem=col[0][6],
                            config=configs.get(col[0][0].split("(")[0].strip()),
                            us=round(statistics.median(c[1] for c in col), 3),
                            gap_us=round(statistics.median(c[2] for c in col[1:] if True) if len(col) > 1 else 0.0, 3)))
    del g, data
    return dict(kernel=kernel, rows=rows, cols=cols, sets=sets, max_rel_err=err, call_s=statistics.median(times),
                kernels_per_call=per_call, traced=len(ks), kernels=kernels)


def main(out_name="split_probe.jsonl"):
    out_dir = sys.argv[1]
    budget = float(sys.argv[2]) if len(sys.argv) > 2 else 200.0
    t0 = time.time()
    torch._dynamo.config.cache_size_limit = 1024
    out = open(os.path.join(out_dir, out_name), "w")
    out.write(json.dumps({"kind": "meta", "torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                          "sms": torch.cuda.get_device_properties(0).multi_processor_count,
                          "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}) + "\n")
    pairs = [(r, c) for c in COLS for r in ROWS]
    pairs = pairs[::2] + pairs[1::2]  # a budget cut loses a spread of shapes, not the widest
    if out_name == "split_probe3.jsonl":
        pairs = SHAPES3
    order = [(k, r, c) for r, c in pairs for k in KERNELS]
    for k, r, c in order:
        if time.time() - t0 > budget:
            out.write(json.dumps({"kind": "skipped", "kernel": k, "rows": r, "cols": c}) + "\n")
            continue
        try:
            rec = case(k, r, c)
        except Exception as e:  # keep going
            rec = dict(kernel=k, rows=r, cols=c, error=repr(e)[:300])
        rec["t"] = round(time.time() - t0, 1)
        out.write(json.dumps(rec) + "\n")
        out.flush()
        print(k, r, c, rec.get("error", ""), rec.get("kernels_per_call"), round(rec.get("call_s", 0) * 1e6, 2),
              [(q["us"], q["grid"], q.get("config")) for q in rec.get("kernels", [])], rec["t"], flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[3] == "grid2":
        ROWS, COLS = GRID2
        main("split_probe2.jsonl")
    elif len(sys.argv) > 3 and sys.argv[3] == "grid3":
        main("split_probe3.jsonl")
    elif len(sys.argv) > 3 and sys.argv[3] == "repeat":
        main("split_probe_repeat.jsonl")
    else:
        main()
