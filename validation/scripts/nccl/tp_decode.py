#!/usr/bin/env python3
"""Times one tensor-parallel decode step of Llama-shaped layers (random bf16 weights) at TP=1 and TP=2.

  NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
    python3 validation/scripts/nccl/tp_decode.py --out DIR [--models llama3-8b,llama2-13b,llama3-70b]

Models (config.json shapes): Llama-3-8B and Llama-2-13B at TP=1 and TP=2, Llama-3-70B at TP=2 only
(141 GB of bf16 weights need both GPUs). Points whose KV cache does not fit beside the weights
(b x ctx over what is free after the weights, less a 6 GiB margin) are skipped and listed.

Per layer, as Megatron-LM / vLLM shard it: RMSNorm; QKV column-parallel (heads split per GPU);
KV append; attention over the GPU's heads (--attention flash, the default: SDPA's flash backend
forced, one query row per head, enable_gqa, so FlashAttention-2's split-KV decode runs; --attention
folded, the first run's call: the GQA group folded into the query length, SDPA's default backend); O row-parallel + all-reduce; RMSNorm; gate/up column-parallel; SiLU*mul; down
row-parallel + all-reduce. Then final norm, vocab-parallel LM head and an all-gather of the logits.
No rotary embedding (a few tiny elementwise kernels; left out). The whole step is captured in one
CUDA graph (NCCL calls included) and its replays are timed with CUDA events; median reported.
Writes tp_decode.csv: tp, batch, ctx, time_s (median), min_s, max_s, reps.
"""
import argparse, csv, os, statistics, sys, time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

EPS = 1e-5
# name: hidden, layers, heads, kv heads, head_dim, FFN, vocab, TP degrees (config.json of each model)
MODELS = {
    "llama3-8b": (4096, 32, 32, 8, 128, 14336, 128256, (1, 2)),
    "llama2-13b": (5120, 40, 40, 40, 128, 13824, 32000, (1, 2)),
    "llama3-70b": (8192, 80, 64, 8, 128, 28672, 128256, (2,)),
}
MARGIN = 6 << 30  # bytes left free for the graph's activations, NCCL buffers and the allocator


class Shard:
    """One GPU's shard: weights, then a KV cache per layer for `kv_tokens` tokens (flat, viewed per point
    as [batch, kv heads, ctx, head_dim], each sequence contiguous as in a paged cache's blocks)."""

    def __init__(self, name, tp, dev, attention="flash"):
        self.attention = attention
        hid, self.nl, heads, kvh, self.hd, ffn, vocab, _ = MODELS[name]
        self.hid, self.tp, self.h, self.kvh = hid, tp, heads // tp, max(kvh // tp, 1)
        self.ffn, self.vocab = ffn // tp, vocab // tp
        std = 0.02
        r = lambda *s: (torch.randn(*s, device=dev, dtype=torch.bfloat16) * std)
        self.layers = []
        for _ in range(self.nl):
            self.layers.append(dict(
                n1=torch.ones(hid, device=dev, dtype=torch.bfloat16),
                n2=torch.ones(hid, device=dev, dtype=torch.bfloat16),
                qkv=r((self.h + 2 * self.kvh) * self.hd, hid),
                o=r(hid, self.h * self.hd),
                gate_up=r(2 * self.ffn, hid),
                down=r(hid, self.ffn)))
        self.nf = torch.ones(hid, device=dev, dtype=torch.bfloat16)
        self.lm = r(self.vocab, hid)
        torch.cuda.synchronize()

    def kv_bytes_per_token(self):
        return 2 * self.nl * self.kvh * self.hd * 2

    def alloc_kv(self, tokens, dev):
        n = tokens * self.kvh * self.hd
        for L in self.layers:
            L["k"] = torch.randn(n, device=dev, dtype=torch.bfloat16)
            L["v"] = torch.randn(n, device=dev, dtype=torch.bfloat16)
        torch.cuda.synchronize()

    def step(self, x, ctx, logits):
        b = x.shape[0]
        g = self.h // self.kvh
        HIDDEN, HEAD_DIM, n = self.hid, self.hd, b * self.kvh * ctx * self.hd
        for L in self.layers:
            h = F.rms_norm(x, (HIDDEN,), L["n1"], EPS)
            qkv = F.linear(h, L["qkv"])
            q, k, v = qkv.split([self.h * HEAD_DIM, self.kvh * HEAD_DIM, self.kvh * HEAD_DIM], dim=-1)
            kc = L["k"][:n].view(b, self.kvh, ctx, HEAD_DIM)
            vc = L["v"][:n].view(b, self.kvh, ctx, HEAD_DIM)
            kc[:, :, ctx - 1] = k.view(b, self.kvh, HEAD_DIM)
            vc[:, :, ctx - 1] = v.view(b, self.kvh, HEAD_DIM)
            if self.attention == "flash":
                # As serving engines and the production kernel measurements call it: one query row per
                # head, GQA inside the kernel, the flash backend forced (an error, not a silent fallback,
                # if it cannot run): FlashAttention-2's split-KV decode.
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    a = F.scaled_dot_product_attention(q.view(b, self.h, 1, HEAD_DIM), kc, vc,
                                                       enable_gqa=self.h != self.kvh)
            else:
                qh = q.view(b, self.kvh, g, HEAD_DIM)  # GQA: the group's heads as query rows, default backend
                a = F.scaled_dot_product_attention(qh, kc, vc)
            y = F.linear(a.reshape(b, self.h * HEAD_DIM), L["o"])
            if self.tp > 1:
                dist.all_reduce(y)
            x = x + y
            h = F.rms_norm(x, (HIDDEN,), L["n2"], EPS)
            gu = F.linear(h, L["gate_up"])
            gte, up = gu.chunk(2, dim=-1)
            y = F.linear(F.silu(gte) * up, L["down"])
            if self.tp > 1:
                dist.all_reduce(y)
            x = x + y
        h = F.rms_norm(x, (self.hid,), self.nf, EPS)
        part = F.linear(h, self.lm)
        if self.tp > 1:
            dist.all_gather_into_tensor(logits, part.contiguous())
        else:
            logits.copy_(part)
        return x


def time_point(sh, b, ctx, dev, reps):
    x = torch.randn(b, sh.hid, device=dev, dtype=torch.bfloat16)
    logits = torch.empty(sh.tp * b, sh.vocab, device=dev, dtype=torch.bfloat16)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            sh.step(x, ctx, logits)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        sh.step(x, ctx, logits)
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        e0.record(); g.replay(); e1.record(); e1.synchronize()
        ts.append(e0.elapsed_time(e1) * 1e-3)
    if not torch.isfinite(logits.float().sum()):
        raise RuntimeError("non-finite logits")
    del g
    return statistics.median(ts), min(ts), max(ts)


def probe(sh, b, ctx, dev, rank):
    """Names the kernels one eager step launches whose name says attention (which backend ran)."""
    x = torch.randn(b, sh.hid, device=dev, dtype=torch.bfloat16)
    logits = torch.empty(sh.tp * b, sh.vocab, device=dev, dtype=torch.bfloat16)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        sh.step(x, ctx, logits)
        torch.cuda.synchronize()
    names = sorted({e.name for e in prof.events() if any(k in e.name.lower() for k in ("flash", "fmha", "attention", "cudnn"))})
    for n in names if rank == 0 else []:
        print(f"probe b{b} ctx{ctx} tp{sh.tp}: {n[:160]}", flush=True)


def save(out, rows):
    with open(os.path.join(out, "tp_decode.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader(); w.writerows(rows)


def worker(rank, n, args):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29544")
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", rank=rank, world_size=n, device_id=dev)
    batches = [int(v) for v in args.batches.split(",")]
    ctxs = [int(v) for v in args.ctxs.split(",")]
    rows, skipped = [], []
    for name in args.models.split(","):
        for tp in (1, 2):
            if tp not in MODELS[name][7]:
                continue
            if tp == 1 and rank != 0:  # TP=1 runs on GPU 0 alone
                dist.barrier()
                continue
            t0 = time.time()
            sh = Shard(name, tp, dev, args.attention)
            free, _ = torch.cuda.mem_get_info(dev)
            cap = max(0, (free - MARGIN) // sh.kv_bytes_per_token())
            if tp > 1:  # both ranks must run the same points
                t = torch.tensor([cap], device=dev)
                dist.all_reduce(t, op=dist.ReduceOp.MIN)
                cap = int(t.item())
            points = [(b, c) for b in batches for c in ctxs if b * c <= cap]
            skipped += [(name, tp, b, c) for b in batches for c in ctxs if b * c > cap]
            sh.alloc_kv(max([b * c for b, c in points], default=1), dev)
            for b, c in points:
                if args.probe and (b, c) in (points[0], points[-1]):  # every rank: the step holds collectives
                    probe(sh, b, c, dev, rank)
                med, lo, hi = time_point(sh, b, c, dev, args.reps)
                rows.append(dict(model=name, tp=tp, batch=b, ctx=c, time_s=med, min_s=lo, max_s=hi, reps=args.reps,
                                 attention=args.attention))
                if rank == 0:
                    save(args.out, rows)  # after every point, so a run cut short keeps what it measured
                    print(f"{name} tp{tp} b{b:3d} ctx{c:5d}  {med*1e3:8.3f} ms  [{lo*1e3:.3f}..{hi*1e3:.3f}]", flush=True)
            del sh
            torch.cuda.empty_cache()
            if rank == 0:
                print(f"{name} tp{tp} done in {time.time()-t0:.1f} s; KV room {cap} tokens", flush=True)
            if tp == 1:
                dist.barrier()
    if rank == 0:
        for k in skipped:
            print("skipped (KV does not fit): %s tp%d b%d ctx%d" % k, flush=True)
    dist.destroy_process_group()


def main():
    for v, want in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")):
        if os.environ.get(v) != want:
            sys.exit(f"tp_decode: export {v}={want} first (NVLink multicast must stay off)")
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--models", default="llama3-8b,llama2-13b,llama3-70b")
    p.add_argument("--batches", default="1,4,16,64")
    p.add_argument("--ctxs", default="1024,4096,8192")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--attention", choices=["flash", "folded"], default="flash",
                   help="flash: SDPA flash backend forced, one query row per head, enable_gqa (split-KV decode); "
                        "folded: the GQA group folded into the query length, default backend (the first run)")
    p.add_argument("--probe", action="store_true", help="print the attention kernels of the first point (torch.profiler)")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.multiprocessing.spawn(worker, args=(2, args), nprocs=2, join=True)


if __name__ == "__main__":
    main()
