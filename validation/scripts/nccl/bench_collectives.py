#!/usr/bin/env python3
"""Times NCCL collectives through torch.distributed, one process per GPU, as nccl-tests does.

  NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
    python3 validation/scripts/nccl/bench_collectives.py --out DIR [--gpus 2] [--max-log2 30]

Sizes follow nccl-tests' convention (common.cu / *.cu getBw): `bytes` is the per-rank buffer that
names the operation's size -- all_reduce: the buffer; all_gather: the gathered output;
reduce_scatter: the input that is scattered; all_to_all: the send buffer; send_recv: the message.
algbw = bytes / time; busbw = algbw * factor (all_reduce 2(n-1)/n, all_gather, reduce_scatter and
all_to_all (n-1)/n, send_recv 1).

Timing: a CUDA graph of K back-to-back collectives is captured once per size (so host launch cost
stays out, as with nccl-tests -G), replayed after warm-up, each replay timed with CUDA events;
the per-op time is the median replay time / K. Falls back to an eager loop if capture fails.
Data is bf16 and random (never zeros). Writes collectives.csv (one row per rank-0 measurement).
"""
import argparse, csv, json, os, statistics, sys, time

import torch
import torch.distributed as dist

OPS = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv"]


def bus_factor(op, n):
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op == "send_recv":
        return 1.0
    return (n - 1) / n


def make_op(op, nbytes, rank, n, dev):
    """Returns a closure issuing one collective on buffers of the nccl-tests size `nbytes`."""
    elems = max(nbytes // 2, n)  # bf16
    elems -= elems % n
    g = torch.Generator(device=dev).manual_seed(1234 + rank)
    if op == "all_reduce":
        x = torch.randn(elems, device=dev, dtype=torch.bfloat16, generator=g)
        return lambda: dist.all_reduce(x)
    if op == "all_gather":
        out = torch.empty(elems, device=dev, dtype=torch.bfloat16)
        x = torch.randn(elems // n, device=dev, dtype=torch.bfloat16, generator=g)
        return lambda: dist.all_gather_into_tensor(out, x)
    if op == "reduce_scatter":
        x = torch.randn(elems, device=dev, dtype=torch.bfloat16, generator=g)
        out = torch.empty(elems // n, device=dev, dtype=torch.bfloat16)
        return lambda: dist.reduce_scatter_tensor(out, x)
    if op == "all_to_all":
        x = torch.randn(elems, device=dev, dtype=torch.bfloat16, generator=g)
        out = torch.empty_like(x)
        return lambda: dist.all_to_all_single(out, x)
    if op == "send_recv":
        # nccl-tests sendrecv: every rank sends to rank+1 and receives from rank-1 in one group.
        x = torch.randn(elems, device=dev, dtype=torch.bfloat16, generator=g)
        out = torch.empty_like(x)
        peer_s, peer_r = (rank + 1) % n, (rank - 1) % n

        def f():
            reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, x, peer_s), dist.P2POp(dist.irecv, out, peer_r)])
            for r in reqs:
                r.wait()
        return f
    raise ValueError(op)


def time_op(fn, nbytes, dev, use_graph):
    # Ops per graph: many for small sizes (launch floors dominate), few for large.
    k = 32 if nbytes <= (1 << 20) else (8 if nbytes <= (1 << 26) else 2)
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    graph = None
    if use_graph:
        try:
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(2):
                    fn()
            torch.cuda.current_stream().wait_stream(s)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                for _ in range(k):
                    fn()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 -- record and fall back to eager
            print(f"graph capture failed ({e}); eager", file=sys.stderr)
            graph = None
    run = graph.replay if graph is not None else (lambda: [fn() for _ in range(k)])
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    # First timed replay sizes the repeat count to about 0.15 s per point.
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record(); run(); e1.record(); torch.cuda.synchronize()
    one = max(e0.elapsed_time(e1) * 1e-3, 1e-6)
    reps = int(min(200, max(10, 0.15 / one)))
    # Both ranks must run the same count: agree on the larger.
    t = torch.tensor([reps], device=dev)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    reps = int(t.item())
    times = []
    for _ in range(reps):
        e0.record(); run(); e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1) * 1e-3 / k)
    return statistics.median(times), min(times), max(times), reps, k, graph is not None


def worker(rank, n, args):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", rank=rank, world_size=n, device_id=dev)
    sizes = [1 << p for p in range(args.min_log2, args.max_log2 + 1)]
    rows = []
    t_start = time.time()
    if args.probe:
        # One call per op and size, untimed, so that NCCL_DEBUG=INFO logs what NCCL chose for each.
        for op in args.ops.split(","):
            for nb in sizes[::2]:
                fn = make_op(op, nb, rank, n, dev)
                fn()
                torch.cuda.synchronize()
                del fn
        dist.destroy_process_group()
        return
    for op in args.ops.split(","):
        for nb in sizes:
            fn = make_op(op, nb, rank, n, dev)
            med, lo, hi, reps, k, g = time_op(fn, nb, dev, not args.eager)
            algbw = nb / med
            rows.append(dict(op=op, gpus=n, bytes=nb, time_s=med, min_s=lo, max_s=hi, reps=reps, ops_per_replay=k,
                             graph=int(g), mode="graph" if g else "eager", algbw_Bps=algbw, busbw_Bps=algbw * bus_factor(op, n)))
            if rank == 0:
                print(f"{op:15s} {nb:>11d} B  {med*1e6:10.2f} us  busbw {algbw*bus_factor(op, n)/1e9:8.2f} GB/s"
                      f"  [{lo*1e6:.2f}..{hi*1e6:.2f}] x{reps}", flush=True)
            del fn
            torch.cuda.empty_cache()
    if rank == 0:
        with open(os.path.join(args.out, f"collectives{args.tag}.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader(); w.writerows(rows)
        meta = dict(torch=torch.__version__, nccl=".".join(map(str, torch.cuda.nccl.version())),
                    cuda=torch.version.cuda, gpus=n, device=torch.cuda.get_device_name(0),
                    date_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), seconds=time.time() - t_start,
                    env={k: os.environ.get(k) for k in ["NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST",
                                                       "NVSHMEM_DISABLE_NVLS", "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS"]})
        with open(os.path.join(args.out, f"meta{args.tag}.json"), "w") as f:
            json.dump(meta, f, indent=1)
    dist.destroy_process_group()


def main():
    for v in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"):
        want = "0" if v == "NCCL_NVLS_ENABLE" else "1"
        if os.environ.get(v) != want:
            sys.exit(f"bench_collectives: export {v}={want} first (NVLink multicast must stay off)")
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--min-log2", type=int, default=10)
    p.add_argument("--max-log2", type=int, default=30)
    p.add_argument("--eager", action="store_true")
    p.add_argument("--probe", action="store_true", help="one untimed call per op and size (for NCCL_DEBUG logs)")
    p.add_argument("--tag", default="", help="suffix of collectives<tag>.csv / meta<tag>.json")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.multiprocessing.spawn(worker, args=(args.gpus, args), nprocs=args.gpus, join=True)


if __name__ == "__main__":
    main()
