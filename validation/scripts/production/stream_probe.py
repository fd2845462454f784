"""Inductor pointwise streams on the GPU: read:write mixes (fill, copy, add, casts) and repeat_kv's expand
(1:g), each torch.compile'd (one Triton kernel), timed as 5 calls in a CUDA graph, median of 12 replays.

    python3 validation/scripts/production/stream_probe.py OUT.jsonl

One JSON line a case: bytes_read / bytes_written (DRAM, each operand once), seconds a call, the kernels
torch.profiler saw in one call (one Triton kernel expected; two: an eager fallback, excluded).
validation/results/h200-streammix/README.md."""
import json, sys, torch
torch._dynamo.config.recompile_limit = 256  # one compile per case: the 2026-12-03 run hit the default 8 (eager fallback)
torch._dynamo.config.cache_size_limit = 256
torch.backends.cuda.matmul.allow_tf32 = False
out = open(sys.argv[1], "w")
dev = "cuda"

def timed(fn, args, calls=5, reps=12):
    for _ in range(3): fn(*args)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2): fn(*args)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    with torch.cuda.graph(g):
        for _ in range(calls): fn(*args)
    for _ in range(2): g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); g.replay(); b.record(); torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) * 1e-3 / calls)
    ts.sort()
    return ts[len(ts) // 2], ts[0], ts[-1]

def kernels(fn, args):
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        fn(*args); torch.cuda.synchronize()
    return [(e.name[:80], e.device_time) for e in p.events() if e.device_type.name == "CUDA"]

def case(name, fn, args, read, written, **kw):
    f = torch.compile(fn, dynamic=False)
    med, lo, hi = timed(f, args)
    k = kernels(f, args)
    r = dict(case=name, bytes_read=read, bytes_written=written, seconds=med, lo=lo, hi=hi,
             rate_GBs=(read + written) / med / 1e9, write_GBs=written / med / 1e9, kernels=k, **kw)
    out.write(json.dumps(r) + "\n"); out.flush()
    print(f"{name:28s} R {read/1e6:8.1f} W {written/1e6:8.1f} MB  {med*1e6:8.2f} us  {r['rate_GBs']:6.0f} GB/s  W {r['write_GBs']:6.0f}  k={len(k)}", flush=True)

for n in (64 << 20, 256 << 20):
    i8 = torch.randint(-100, 100, (n,), dtype=torch.int8, device=dev)
    bf = torch.randn(n, dtype=torch.bfloat16, device=dev)
    bf2 = torch.randn(n, dtype=torch.bfloat16, device=dev)
    f32 = torch.randn(n, dtype=torch.float32, device=dev)
    case(f"fill_bf16_{n>>20}M", lambda x: torch.ones_like(x), (bf,), 0, 2 * n)
    case(f"copy_bf16_{n>>20}M", lambda x: x + 1, (bf,), 2 * n, 2 * n)
    case(f"add_bf16_{n>>20}M", lambda x, y: x + y, (bf, bf2), 4 * n, 2 * n)
    case(f"cast_i8_bf16_{n>>20}M", lambda x: x.to(torch.bfloat16), (i8,), n, 2 * n)
    case(f"cast_i8_fp32_{n>>20}M", lambda x: x.to(torch.float32), (i8,), n, 4 * n)
    case(f"cast_bf16_fp32_{n>>20}M", lambda x: x.to(torch.float32), (bf,), 2 * n, 4 * n)
    case(f"cast_fp32_bf16_{n>>20}M", lambda x: x.to(torch.bfloat16), (f32,), 4 * n, 2 * n)
    case(f"cast_bf16_i8_{n>>20}M", lambda x: x.to(torch.int8), (bf,), 2 * n, n)
    case(f"sum2_bf16_{n>>20}M", lambda x: x.view(-1, 2).sum(1), (bf,), 2 * n, n)
    del i8, bf, bf2, f32
    torch.cuda.empty_cache()

def rep(x, g):
    b, kv, s, d = x.shape
    return x[:, :, None, :, :].expand(b, kv, g, s, d).reshape(b, kv * g, s, d).clone()

for b, kv, s in ((8, 4, 4144), (16, 8, 2088), (4, 8, 8192)):
    x = torch.randn(b, kv, s, 128, dtype=torch.bfloat16, device=dev)
    for g in (1, 2, 3, 4, 5, 6, 7, 8):
        if g == 1:
            fn = lambda x: x + 0
        else:
            fn = (lambda gg: (lambda x: rep(x, gg)))(g)
        R = x.numel() * 2
        case(f"expand{g}_b{b}_kv{kv}_s{s}", fn, (x,), R, R * g, group=g, batch=b, kv_heads=kv, kv_len=s)
    del x
    torch.cuda.empty_cache()
print("done", flush=True)
