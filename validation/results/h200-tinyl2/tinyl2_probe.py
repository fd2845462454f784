"""Branch tinyl2: a tiny Inductor pointwise call (SiLU*mul, torch.compile) timed inside one CUDA graph
over controlled rotated footprints, to separate the floor, the L2 and the DRAM round trips, whether the
output rotates, and page (TLB) reach. Prints JSON lines; writes $OUT/probe.json."""
import json, os, statistics, sys, time
import torch
import torch.nn.functional as F

out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
dev = "cuda"
torch.manual_seed(0)
T0 = time.time()
res = []


def f_new(g, u):
    return F.silu(g) * u


def f_out(g, u, o):
    o.copy_(F.silu(g) * u)


cf_new = torch.compile(f_new, dynamic=False)
cf_out = torch.compile(f_out, dynamic=False)


def time_graph(calls, reps=15):
    """calls: list of thunks; capture all in one graph, replay reps times; per-call median (us)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for c in calls[:3]:
            c()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for c in calls:
            c()
    g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1e3 / len(calls))
    del g
    return statistics.median(ts), min(ts), max(ts)


def emit(**kw):
    kw["t"] = round(time.time() - T0, 1)
    res.append(kw)
    print(json.dumps(kw), flush=True)


def run(rows, cols, nsets, mode, L=2000):
    # mode: 'in' inputs rotate, outputs freed (harness.py); 'inout' outputs rotate too (out= per set);
    # 'page' inputs rotate, each set in its own 2 MiB page (random 64 KiB-aligned offset in it)
    e = rows * cols
    if mode == "page":
        page = 2 * 1024 * 1024 // 2  # bf16 elements in 2 MiB
        big = torch.randn(nsets * page + 2 * e, device=dev, dtype=torch.bfloat16)
        sets = []
        for i in range(nsets):
            off = i * page + int(torch.randint(0, (page - 2 * e) // 32768 + 1, (1,))) * 32768
            sets.append((big[off:off + e].view(rows, cols), big[off + e:off + 2 * e].view(rows, cols)))
    else:
        sets = [(torch.randn(rows, cols, device=dev, dtype=torch.bfloat16),
                 torch.randn(rows, cols, device=dev, dtype=torch.bfloat16)) for _ in range(nsets)]
    if mode == "inout":
        outs = [torch.empty(rows, cols, device=dev, dtype=torch.bfloat16) for _ in range(nsets)]
        calls = [(lambda i=i: cf_out(sets[i % nsets][0], sets[i % nsets][1], outs[i % nsets])) for i in range(L)]
    else:
        calls = [(lambda i=i: cf_new(*sets[i % nsets])) for i in range(L)]
    med, lo, hi = time_graph(calls)
    inb = nsets * 2 * e * 2
    emit(kind="silu_mul", rows=rows, cols=cols, sets=nsets, mode=mode, us=round(med, 4), lo=round(lo, 4),
         hi=round(hi, 4), inputs_mb=round(inb / 1e6, 2),
         rotated_mb=round((inb + (nsets if mode == "inout" else 1) * e * 2) / 1e6, 2))
    del sets, calls
    torch.cuda.synchronize()


try:
    # footprint sweep at 4 x 4096 (64 KiB of inputs a set, 32 KiB out)
    for n in (1, 250, 450, 550, 650, 800, 1000, 1400, 2000):
        run(4, 4096, n, "in")
    for n in (1, 250, 450, 550, 650, 800, 1000, 1400):
        run(4, 4096, n, "inout")
        if time.time() - T0 > 100: break
    for n in (300, 500):
        run(4, 4096, n, "page")
        if time.time() - T0 > 120: break
    # the smallest: 1 x 896 at one set and at 1000
    for n in (1, 1000):
        run(1, 896, n, "in")
finally:
    os.makedirs(out_dir, exist_ok=True)
    json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "cases": res},  # committed as probe.jsonl (README)
              open(os.path.join(out_dir, "probe.json"), "w"), indent=1)
