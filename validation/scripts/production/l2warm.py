#!/usr/bin/env python3
"""Inductor's add+RMSNorm and SiLU*mul (fused_step.py's stand-ins) alone, per kernel (torch.profiler
durations inside a CUDA graph replay), in three L2 states: cold (a 256 MB write evicts everything
first), producer-warm (the same, then a copy kernel writes the kernel's activation input, as the
step's previous kernel does; residual and weight stay in DRAM), all-warm (back-to-back calls on the
same buffers). Branch fusedsmall, issue 10."""
import json, os, statistics, sys, time
sys.path.insert(0, 'validation/scripts/production')
import torch
from torch.profiler import ProfilerActivity, profile
import fused_step as fs

OUT = os.environ.get('OUT', '.')
BF16 = torch.bfloat16
flush = torch.empty(256 << 20, dtype=torch.uint8, device='cuda')
out = open(os.path.join(OUT, 'l2warm.jsonl'), 'w')
T0 = time.time()
LIMIT = float(sys.argv[1]) if len(sys.argv) > 1 else 150


def kernel_times(seq, key, reps=20, replays=3):
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            for f in seq: f()
    torch.cuda.current_stream().wait_stream(s); torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps):
            for f in seq: f()
    g.replay(); torch.cuda.synchronize()
    d = []
    for _ in range(replays):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            g.replay(); torch.cuda.synchronize()
        d += [e.time_range.elapsed_us() for e in prof.events()
              if e.device_type == torch.autograd.DeviceType.CUDA and key in e.name]
    names = sorted({e.name[:80] for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA and key in e.name})
    return statistics.median(d), len(d), names


def case(kind, width, rows, fn, inp, src):
    res = {}
    do_flush = lambda: flush.fill_(1)
    produce = lambda: inp.copy_(src)
    res['cold'] = kernel_times([do_flush, fn], key)
    res['producer_warm'] = kernel_times([do_flush, produce, fn], key)
    res['all_warm'] = kernel_times([fn], key)
    rec = dict(kind=kind, width=width, rows=rows, **{k: v[0] for k, v in res.items()},
               samples=res['cold'][1], kernels=res['cold'][2])
    print(json.dumps(rec), flush=True); out.write(json.dumps(rec) + '\n'); out.flush()


print(json.dumps(dict(meta=1, device=torch.cuda.get_device_name(), torch=torch.__version__)), flush=True)
for width in (4096, 2048):
    K = fs.Kernels()
    for rows in (1, 8, 64, 128):
        if time.time() - T0 > LIMIT: break
        x = torch.randn(rows, width, device='cuda', dtype=BF16); r = torch.randn_like(x); src = torch.randn_like(x)
        w = torch.randn(width, device='cuda', dtype=BF16)
        key = 'rms_norm'
        case('add_rmsnorm', width, rows, lambda: K.add_rmsnorm(x, r, w, 1e-5), x, src)
for inter in (14336, 5632):
    K = fs.Kernels()
    for rows in (1, 8, 64, 128):
        if time.time() - T0 > LIMIT: break
        gu = torch.randn(rows, 2 * inter, device='cuda', dtype=BF16); src = torch.randn_like(gu)
        key = 'silu'
        case('silu_mul', inter, rows, lambda: K.silu_mul(gu), gu, src)
print('elapsed', time.time() - T0)
