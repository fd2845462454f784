"""Mixed read/write DRAM streams on the H200 (helper castcopy): ATen elementwise kernels whose
read:write byte ratio spans 0:1 .. 4:1 and 1:4, at 64 MB .. 1 GB of traffic a launch. Hot time: a
CUDA graph of L launches cycling through rotating buffer sets (>= 4x L2 in all), timed with events,
divided by L; median of >= 15 samples. Writes one JSON line per case."""
import json, os, statistics, sys, time
import torch

out_dir = sys.argv[1]
torch.backends.cuda.matmul.allow_tf32 = False
dev = torch.device("cuda")
L2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 60 << 20)
f = open(os.path.join(out_dir, "mixrate.jsonl"), "w")

def bytes_of(dt):
    return torch.empty((), dtype=dt).element_size()

# name, input dtypes (one tensor each), output dtype, fn(inputs, out)
CASES = [
    ("fill_bf16", [], torch.bfloat16, lambda i, o: o.fill_(1.0)),
    ("sum_bf16", [torch.bfloat16], None, lambda i, o: torch.sum(i[0], dtype=torch.float32)),
    ("copy_bf16", [torch.bfloat16], torch.bfloat16, lambda i, o: o.copy_(i[0])),
    ("cast_i8_bf16", [torch.int8], torch.bfloat16, lambda i, o: o.copy_(i[0])),
    ("cast_bf16_fp32", [torch.bfloat16], torch.float32, lambda i, o: o.copy_(i[0])),
    ("cast_i8_fp32", [torch.int8], torch.float32, lambda i, o: o.copy_(i[0])),
    ("cast_fp32_bf16", [torch.float32], torch.bfloat16, lambda i, o: o.copy_(i[0])),
    ("cast_fp32_i8", [torch.float32], torch.int8, lambda i, o: o.copy_(i[0])),
    ("add_bf16", [torch.bfloat16] * 2, torch.bfloat16, lambda i, o: torch.add(i[0], i[1], out=o)),
    ("addcmul_bf16", [torch.bfloat16] * 3, torch.bfloat16, lambda i, o: torch.addcmul(i[0], i[1], i[2], out=o)),
    ("cast_bf16_fp8", [torch.bfloat16], torch.float8_e4m3fn, lambda i, o: o.copy_(i[0])),
    # repeat_kv-like expand copies: each source element written `g` times (source 1/g of the output)
    ("expand4_bf16", [torch.bfloat16], torch.bfloat16, 4),
    ("expand7_bf16", [torch.bfloat16], torch.bfloat16, 7),
]
TOTALS = [64 << 20, 256 << 20, 1 << 30]
t_start = time.time()
def expander(g):
    def fn(i, o):
        src = i[0].view(-1, 1, 128)
        o.view(src.shape[0], g, 128).copy_(src.expand(-1, g, -1))
    return fn

for name, ins, odt, fn in CASES:
    group = fn if isinstance(fn, int) else 1
    if group > 1:
        fn = expander(group)
    per_elem_r = sum(bytes_of(d) for d in ins) / group
    per_elem_w = bytes_of(odt) if odt is not None else 0
    for total in TOTALS:
        if time.time() - t_start > 75:
            break
        n = total // (per_elem_r + per_elem_w)
        n = int(n) // (4096 * group) * (4096 * group)
        sets = int(max(1, -(-4 * L2 // (n * (per_elem_r + per_elem_w)))))
        bufs = []
        for s in range(sets):
            xi = []
            for d in ins:
                if d == torch.int8:
                    xi.append(torch.randint(-100, 100, (n // group,), dtype=d, device=dev))
                else:
                    xi.append(torch.randn(n // group, device=dev).to(d))
            o = torch.empty(n, dtype=odt, device=dev) if odt is not None else None
            bufs.append((xi, o))
        for xi, o in bufs:
            fn(xi, o)
        torch.cuda.synchronize()
        # launches a replay: ~2 ms at ~4 TB/s
        est = n * (per_elem_r + per_elem_w) / 4e12
        L = max(sets, min(400, int(2e-3 / est) // sets * sets or sets))
        g = torch.cuda.CUDAGraph()
        s_ = torch.cuda.Stream()
        s_.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s_):
            with torch.cuda.graph(g):
                for j in range(L):
                    xi, o = bufs[j % sets]
                    fn(xi, o)
        torch.cuda.current_stream().wait_stream(s_)
        g.replay(); g.replay(); torch.cuda.synchronize()
        samples = []
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(15):
            e0.record(); g.replay(); e1.record(); e1.synchronize()
            samples.append(e0.elapsed_time(e1) * 1e-3 / L)
        med = statistics.median(samples)
        rec = {"case": name, "n": n, "group": group, "bytes_read": n * per_elem_r, "bytes_written": n * per_elem_w,
               "launches": L, "sets": sets, "seconds": med,
               "spread": (statistics.quantiles(samples, n=4)[2] - statistics.quantiles(samples, n=4)[0]) / med,
               "rate_GBs": n * (per_elem_r + per_elem_w) / med / 1e9}
        f.write(json.dumps(rec) + "\n"); f.flush()
        print(json.dumps(rec), flush=True)
        del g, bufs
        torch.cuda.empty_cache()
meta = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "l2": L2}
f.write(json.dumps({"meta": meta}) + "\n")
f.close()
