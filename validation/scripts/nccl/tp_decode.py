#!/usr/bin/env python3
"""Times one tensor-parallel decode step of Llama-3-8B-shaped layers (random bf16 weights) at TP=1 and TP=2.

  NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
    python3 validation/scripts/nccl/tp_decode.py --out DIR

Per layer, as Megatron-LM / vLLM shard it: RMSNorm; QKV column-parallel (heads split per GPU);
KV append; attention over the GPU's KV heads (GQA folded into the query length so SDPA's fused
kernels run); O row-parallel + all-reduce; RMSNorm; gate/up column-parallel; SiLU*mul; down
row-parallel + all-reduce. Then final norm, vocab-parallel LM head and an all-gather of the logits.
No rotary embedding (a few tiny elementwise kernels; left out). The whole step is captured in one
CUDA graph (NCCL calls included) and its replays are timed with CUDA events; median reported.
Writes tp_decode.csv: tp, batch, ctx, time_s (median), min_s, max_s, reps.
"""
import argparse, csv, os, statistics, sys, time

import torch
import torch.distributed as dist
import torch.nn.functional as F

# Llama-3-8B (config.json of meta-llama/Meta-Llama-3-8B)
HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, FFN, VOCAB, EPS = 4096, 32, 32, 8, 128, 14336, 128256, 1e-5


class Shard:
    def __init__(self, tp, dev, max_batch, max_ctx):
        self.tp, self.h, self.kvh = tp, HEADS // tp, KV_HEADS // tp
        self.ffn, self.vocab = FFN // tp, VOCAB // tp
        std = 0.02
        r = lambda *s: (torch.randn(*s, device=dev, dtype=torch.bfloat16) * std)
        self.layers = []
        for _ in range(LAYERS):
            self.layers.append(dict(
                n1=torch.ones(HIDDEN, device=dev, dtype=torch.bfloat16),
                n2=torch.ones(HIDDEN, device=dev, dtype=torch.bfloat16),
                qkv=r((self.h + 2 * self.kvh) * HEAD_DIM, HIDDEN),
                o=r(HIDDEN, self.h * HEAD_DIM),
                gate_up=r(2 * self.ffn, HIDDEN),
                down=r(HIDDEN, self.ffn),
                k=torch.randn(max_batch, self.kvh, max_ctx, HEAD_DIM, device=dev, dtype=torch.bfloat16),
                v=torch.randn(max_batch, self.kvh, max_ctx, HEAD_DIM, device=dev, dtype=torch.bfloat16)))
        self.nf = torch.ones(HIDDEN, device=dev, dtype=torch.bfloat16)
        self.lm = r(self.vocab, HIDDEN)

    def step(self, x, ctx, logits):
        b = x.shape[0]
        g = self.h // self.kvh
        for L in self.layers:
            h = F.rms_norm(x, (HIDDEN,), L["n1"], EPS)
            qkv = F.linear(h, L["qkv"])
            q, k, v = qkv.split([self.h * HEAD_DIM, self.kvh * HEAD_DIM, self.kvh * HEAD_DIM], dim=-1)
            kc, vc = L["k"][:b, :, :ctx], L["v"][:b, :, :ctx]
            kc[:, :, ctx - 1] = k.view(b, self.kvh, HEAD_DIM)
            vc[:, :, ctx - 1] = v.view(b, self.kvh, HEAD_DIM)
            qh = q.view(b, self.kvh, g, HEAD_DIM)  # GQA: the group's heads as query rows
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
        h = F.rms_norm(x, (HIDDEN,), self.nf, EPS)
        part = F.linear(h, self.lm)
        if self.tp > 1:
            dist.all_gather_into_tensor(logits, part.contiguous())
        else:
            logits.copy_(part)
        return x


def time_point(sh, b, ctx, dev, reps):
    x = torch.randn(b, HIDDEN, device=dev, dtype=torch.bfloat16)
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
    rows = []
    for tp in (1, 2):
        if tp == 1 and rank != 0:  # TP=1 runs on GPU 0 alone
            dist.barrier()
            continue
        t0 = time.time()
        sh = Shard(tp, dev, max(batches), max(ctxs))
        torch.cuda.synchronize()
        for b in batches:
            for c in ctxs:
                med, lo, hi = time_point(sh, b, c, dev, args.reps)
                rows.append(dict(model="llama3-8b", tp=tp, batch=b, ctx=c, time_s=med, min_s=lo, max_s=hi, reps=args.reps))
                if rank == 0:
                    save(args.out, rows)  # after every point, so a run cut short keeps what it measured
                    print(f"tp{tp} b{b:3d} ctx{c:5d}  {med*1e3:8.3f} ms  [{lo*1e3:.3f}..{hi*1e3:.3f}]", flush=True)
        del sh
        torch.cuda.empty_cache()
        if rank == 0:
            print(f"tp{tp} done in {time.time()-t0:.1f} s", flush=True)
        if tp == 1:
            dist.barrier()
    dist.destroy_process_group()


def main():
    for v, want in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")):
        if os.environ.get(v) != want:
            sys.exit(f"tp_decode: export {v}={want} first (NVLink multicast must stay off)")
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--batches", default="1,4,16,64")
    p.add_argument("--ctxs", default="1024,4096,8192")
    p.add_argument("--reps", type=int, default=20)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.multiprocessing.spawn(worker, args=(2, args), nprocs=2, join=True)


if __name__ == "__main__":
    main()
