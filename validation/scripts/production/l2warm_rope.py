#!/usr/bin/env python3
"""fused_step.py's decode rotary + KV write (three Inductor kernels) alone, per kernel, cold vs
producer-warm (a copy kernel writes the qkv rows just before, as the qkv GEMM does in the step) vs
all-warm; as l2warm.py. Branch fusedsmall."""
import json, os, statistics, sys, time
sys.path.insert(0, 'validation/scripts/production')
import torch
from torch.profiler import ProfilerActivity, profile
import fused_step as fs
OUT = os.environ.get('OUT', '.')
BF16 = torch.bfloat16
flush = torch.empty(256 << 20, dtype=torch.uint8, device='cuda')
out = open(os.path.join(OUT, 'l2warm_rope.jsonl'), 'w')

def kernel_times(seq, reps=20, replays=3):
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
    d = {}
    for _ in range(replays):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            g.replay(); torch.cuda.synchronize()
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA and 'triton' in e.name:
                d.setdefault(e.name[-30:], []).append(e.time_range.elapsed_us())
    return {k: statistics.median(v) for k, v in d.items()}

print(json.dumps(dict(meta=1, device=torch.cuda.get_device_name(), torch=torch.__version__)), flush=True)
for (heads, kvh, hd) in ((32, 8, 128), (32, 4, 64)):
    K = fs.Kernels()
    for b in (1, 8, 64, 128):
        ctx = 2048
        qkv = torch.randn(b, (heads + 2 * kvh) * hd, device='cuda', dtype=BF16); src = torch.randn_like(qkv)
        cs = fs._cos_sin(ctx, hd); pos = torch.full((b,), ctx - 1, device='cuda', dtype=torch.long)
        slots = torch.arange(b, device='cuda') * ctx + ctx - 1
        kc = torch.randn(b * ctx, kvh, hd, device='cuda', dtype=BF16); vc = torch.randn_like(kc)
        fn = lambda: K.rope_kv(qkv, cs, pos, slots, kc, vc, heads, kvh, hd)
        rec = dict(heads=heads, kv_heads=kvh, head_dim=hd, batch=b,
                   cold=kernel_times([lambda: flush.fill_(1), fn]),
                   producer_warm=kernel_times([lambda: flush.fill_(1), lambda: qkv.copy_(src), fn]),
                   all_warm=kernel_times([fn]))
        print(json.dumps(rec), flush=True); out.write(json.dumps(rec) + '\n'); out.flush()
