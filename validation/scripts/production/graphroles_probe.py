"""Branch graphroles: in-graph per-kernel times of (A) cuDNN's masked decode SDPA (the compiled
profile's call: K/V already repeated to every head, additive bf16 mask) at head dim 64 / 128 and (B)
Inductor's add+RMSNorm at one / few rows, each captured in a CUDA graph of 20 calls (B: each call after
a copy kernel that writes x, as the GEMM does in the step), kernels read from torch.profiler's trace
(name, duration, grid). Writes OUT/graphroles.jsonl, one record per case, as it goes."""
import json, os, sys, time, tempfile
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

OUT = sys.argv[1]
T0 = time.time()
BUDGET = float(sys.argv[2]) if len(sys.argv) > 2 else 75.0
out = open(os.path.join(OUT, "graphroles.jsonl"), "w")
dev = torch.device("cuda")
REPS = 20


def emit(rec):
    out.write(json.dumps(rec) + "\n")
    out.flush()


def trace_kernels(g):
    """Replay graph g 3 times under the profiler; every kernel's (name, dur us, grid, block)."""
    g.replay(); torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            g.replay()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    prof.export_chrome_trace(path)
    ev = json.load(open(path)).get("traceEvents", [])
    os.remove(path)
    ks = [e for e in ev if e.get("cat") == "kernel"]
    ks.sort(key=lambda e: e["ts"])
    return [[e["name"][:90], round(e["dur"], 3), e.get("args", {}).get("grid"), e.get("args", {}).get("block")] for e in ks]


def capture(fn):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(REPS):
            fn()
    torch.cuda.synchronize()
    return g


emit({"kind": "meta", "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
      "device": torch.cuda.get_device_name(0), "sms": torch.cuda.get_device_properties(0).multi_processor_count})

# (A) cuDNN decode SDPA with the static cache's additive mask, K / V at every query head.
for d in (64, 128):
    for kv in (256, 560, 1072, 2096, 4144):
        for b in (1, 4):
            if time.time() - T0 > 0.45 * BUDGET:
                break
            h = 32
            try:
                q = torch.randn(b, h, 1, d, device=dev, dtype=torch.bfloat16)
                k = torch.randn(b, h, kv, d, device=dev, dtype=torch.bfloat16)
                v = torch.randn(b, h, kv, d, device=dev, dtype=torch.bfloat16)
                m = torch.zeros(b, 1, 1, kv, device=dev, dtype=torch.bfloat16)
                o = torch.empty(b, h, 1, d, device=dev, dtype=torch.bfloat16)

                def call():
                    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                        o.copy_(F.scaled_dot_product_attention(q, k, v, attn_mask=m))
                ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=m.float())
                call(); torch.cuda.synchronize()
                err = ((o.float() - ref).abs().max() / ref.abs().max()).item()
                g = capture(call)
                emit({"kind": "sdpa", "batch": b, "heads": h, "head_dim": d, "kv_len": kv, "reps": REPS,
                      "max_rel_err": err, "trace": trace_kernels(g), "t": round(time.time() - T0, 1)})
            except Exception as e:  # keep going
                emit({"kind": "sdpa", "batch": b, "head_dim": d, "kv_len": kv, "error": repr(e)[:300]})

# (B) Inductor's add+RMSNorm (transformers' LlamaRMSNorm after the residual add), static shapes.
def add_rms(x, res, w):
    hsum = x + res
    hf = hsum.float()
    var = hf.pow(2).mean(-1, keepdim=True)
    return w * (hf * torch.rsqrt(var + 1e-5)).to(torch.bfloat16), hsum

for rows, cols in ((1, 2048), (1, 4096), (1, 1024), (1, 8192), (1, 3072), (4, 2048), (4, 4096), (1, 6144)):
    if time.time() - T0 > BUDGET:
        break
    try:
        torch._dynamo.reset()
        fn = torch.compile(add_rms, dynamic=False)
        src = torch.randn(rows, cols, device=dev, dtype=torch.bfloat16)
        x = torch.empty_like(src); res = torch.randn_like(src)
        w = torch.randn(cols, device=dev, dtype=torch.bfloat16)
        y = torch.empty_like(src); r2 = torch.empty_like(src)

        def call():
            x.copy_(src)  # the producer: writes the norm's x just before it, as the GEMM does
            a, bb = fn(x, res, w)
            y.copy_(a); r2.copy_(bb)
        t = time.time(); call(); torch.cuda.synchronize(); ct = time.time() - t
        g = capture(call)
        emit({"kind": "add_rmsnorm", "rows": rows, "cols": cols, "reps": REPS, "compile_s": round(ct, 2),
              "trace": trace_kernels(g), "t": round(time.time() - T0, 1)})
    except Exception as e:
        emit({"kind": "add_rmsnorm", "rows": rows, "cols": cols, "error": repr(e)[:300]})

emit({"kind": "end", "t": round(time.time() - T0, 1)})
out.close()
