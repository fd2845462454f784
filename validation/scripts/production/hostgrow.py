#!/usr/bin/env python3
"""Branch hostgrow (issue 10): where does a transformers eager decode step's host time go when it
grows with batch (h200-heldout21: Yi-34B wall 52 / 63 / 92 ms at b1 / b12 / b56, kernels 22 / 30 / 33)?

    python3 hostgrow.py OUT.json --model yi-34b --points 1x1800,56x800 [--deadline S]

Per (batch, ctx) point, the step hf_grid.py times (hf_decode's model, a contiguous DynamicCache
cropped back to ctx and made contiguous between steps, outside timing) and:
  - wall (synchronized) and host return time (the forward's return, before the sync) of 10 steps,
    with each decoder layer's host entry time (forward pre-hooks): is the host itself slower, and where;
  - torch.cuda.memory_stats() deltas over the timed steps alone (device allocs / frees, retries,
    segments): does the caching allocator go to cudaMalloc / cudaFree each step;
  - torch.cuda.set_sync_debug_mode: the synchronizing calls in one step (count, first one's stack);
  - torch.profiler (CPU + CUDA) over 2 steps: CUDA runtime calls by name (count, total, max), the
    long ones (> 300 us) with their offset in the step, GPU kernel sum and busy union.
The cache is filled directly with random K / V (cache.update per layer), not by a prefill: what the
step sees is the same (a contiguous [b, kv, ctx, d] per layer), at no prefill cost.
"""
import argparse
import gc
import json
import os
import sys
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
for p in (HERE, os.path.join(HERE, "..", "validation", "scripts", "production")):
    sys.path.insert(0, p)
import torch  # noqa: E402

import hf_decode  # noqa: E402

T0 = time.perf_counter()


def log(s):
    print(f"[{time.perf_counter() - T0:6.1f}s] {s}", flush=True)


def fill_cache(m, cfg, b, ctx):
    try:
        return fill_direct(cfg, b, ctx)
    except Exception:  # another cache API: hf_decode's way (a prefill), made contiguous
        log(f"direct fill failed, prefill instead: {traceback.format_exc()[-300:]}")
        ids = torch.randint(0, cfg.vocab_size, (b, ctx), device="cuda")
        cache = hf_decode._forward(m, ids, None).past_key_values
        hf_decode._contiguous(cache)
        return cache


def fill_direct(cfg, b, ctx):
    from transformers import DynamicCache
    try:
        cache = DynamicCache(config=cfg)
    except Exception:
        cache = DynamicCache()
    kv, d = cfg.num_key_value_heads, getattr(cfg, "head_dim", cfg.hidden_size // cfg.num_attention_heads)
    for i in range(cfg.num_hidden_layers):
        k = torch.randn(b, kv, ctx, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, kv, ctx, d, device="cuda", dtype=torch.bfloat16)
        cache.update(k, v, i)
    assert cache.get_seq_length() == ctx, cache.get_seq_length()
    return cache


STAT_KEYS = ("num_device_alloc", "num_device_free", "num_alloc_retries", "num_sync_all_streams",
             "num_ooms", "segment.all.current", "reserved_bytes.all.current", "allocated_bytes.all.current",
             "allocation.all.allocated", "allocation.large_pool.allocated", "segment.large_pool.allocated",
             "allocated_bytes.all.peak", "reserved_bytes.all.peak")


def proc_stat():
    """The machine's CPU time split (/proc/stat 'cpu' line: user nice system idle iowait irq softirq
    steal, in ticks) and this process's context switches: is the host descheduled (steal) or blocked."""
    try:
        cpu = [int(x) for x in open("/proc/stat").readline().split()[1:9]]
    except Exception:
        cpu = [0] * 8
    cs = [0, 0]
    try:
        for line in open("/proc/self/status"):
            if line.startswith("voluntary_ctxt_switches"):
                cs[0] = int(line.split()[1])
            elif line.startswith("nonvoluntary_ctxt_switches"):
                cs[1] = int(line.split()[1])
    except Exception:
        pass
    return cpu + cs


def cpu_mhz():
    try:
        v = [float(x.split(":")[1]) for x in open("/proc/cpuinfo") if x.startswith("cpu MHz")]
        return [min(v), max(v)] if v else []
    except Exception:
        return []


def stats():
    s = torch.cuda.memory_stats()
    return {k: s.get(k, 0) for k in STAT_KEYS}


def measure(m, cfg, b, ctx, n=10, tag=""):
    vocab = cfg.vocab_size
    cache = fill_cache(m, cfg, b, ctx)
    nxt = torch.randint(0, vocab, (b, 1), device="cuda")

    def step():
        return m(input_ids=nxt, past_key_values=cache, use_cache=True)

    def between():
        cache.crop(ctx)
        hf_decode._contiguous(cache)
        torch.cuda.synchronize()

    stamps = []
    hooks = [layer.register_forward_pre_hook(lambda mod, args, i=i: stamps.append((i, time.perf_counter())))
             for i, layer in enumerate(m.model.layers)]
    for _ in range(2):
        step()
        torch.cuda.synchronize()
        between()
    walls, rets, per_layer, dstat, cpus = [], [], [], {}, []
    ps0 = proc_stat()
    for _ in range(n):
        stamps.clear()
        s0 = stats()
        c0 = time.thread_time()
        t0 = time.perf_counter()
        out = step()
        t1 = time.perf_counter()
        cpus.append((time.thread_time() - c0) * 1e3)
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        s1 = stats()
        del out
        walls.append(t2 - t0)
        rets.append(t1 - t0)
        ts = [t for _, t in stamps]
        per_layer.append([(ts[i + 1] - ts[i]) * 1e6 for i in range(len(ts) - 1)] + [(t1 - ts[-1]) * 1e6])
        for k in STAT_KEYS:
            if k.endswith(".peak") or k.endswith(".current"):
                dstat[k] = s1[k]
            else:
                dstat[k] = dstat.get(k, 0) + (s1[k] - s0[k]) / n
        between()
    ps1 = proc_stat()
    for h in hooks:
        h.remove()
    import statistics as st
    med_layer = [st.median(col) for col in zip(*per_layer)]
    r = dict(model=cfg.name_or_path or "", tag=tag, batch=b, ctx=ctx,
             cache_bytes=2 * cfg.num_hidden_layers * b * cfg.num_key_value_heads * ctx * cfg.head_dim * 2,
             wall_ms=[w * 1e3 for w in walls], ret_ms=[x * 1e3 for x in rets],
             wall_med_ms=st.median(walls) * 1e3, ret_med_ms=st.median(rets) * 1e3,
             layer_host_us_median=med_layer, thread_cpu_ms=cpus,
             proc_stat_delta=dict(zip(("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
                                       "vol_cs", "invol_cs"), [y - x for x, y in zip(ps0, ps1)])),
             cpu_mhz=cpu_mhz(), mem_delta_per_step=dstat,
             gc_counts=gc.get_count(), loadavg=os.getloadavg())
    # Synchronizing calls (transformers' mask / cache code, .item(), nonzero ...): count, first stack.
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode(1)
        step()
        torch.cuda.set_sync_debug_mode(0)
    r["sync_warnings"] = len(w)
    r["sync_msgs"] = sorted({str(x.message)[:200] for x in w})[:5]
    torch.cuda.synchronize()
    between()
    if len(w):
        try:
            torch.cuda.set_sync_debug_mode(2)
            step()
        except Exception:
            r["sync_first_stack"] = traceback.format_exc()[-3000:]
        finally:
            torch.cuda.set_sync_debug_mode(0)
        torch.cuda.synchronize()
        between()
    # Profiler: CUDA runtime calls and where the host waits.
    from torch.profiler import ProfilerActivity, profile
    rt, longs, ktot, kn, spans, busy = {}, [], 0.0, 0, [], 0.0
    for rep in range(2):
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            tt0 = time.perf_counter()
            step()
            tt1 = time.perf_counter()
            torch.cuda.synchronize()
        spans.append(((tt1 - tt0) * 1e3))
        ev = prof.events()
        cpu0 = min((e.time_range.start for e in ev if e.device_type == torch.autograd.DeviceType.CPU), default=0)
        ivs = []
        for e in ev:
            us = e.time_range.elapsed_us()
            if e.device_type == torch.autograd.DeviceType.CUDA:
                ktot += us
                kn += 1
                ivs.append((e.time_range.start, e.time_range.end))
            elif e.name.startswith("cu") or e.name.startswith("Cuda"):
                a = rt.setdefault(e.name, [0, 0.0, 0.0])
                a[0] += 1
                a[1] += us
                a[2] = max(a[2], us)
                if us > 300:
                    longs.append((e.name, round(us, 1), round((e.time_range.start - cpu0) / 1e3, 2), rep))
        ivs.sort()
        end = -1
        for s, e in ivs:
            if e > end:
                busy += e - max(s, end)
                end = e
        between()
    r["profile"] = dict(runtime_calls={k: dict(n=v[0] / 2, total_us=v[1] / 2, max_us=v[2])
                                       for k, v in sorted(rt.items(), key=lambda kv: -kv[1][1])},
                        long_calls=longs[:40], kernel_ms=ktot / 2e3, kernels=kn / 2,
                        gpu_busy_ms=busy / 2e3, host_ret_ms=spans)
    del cache, nxt
    gc.collect()
    torch.cuda.empty_cache()
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--model", required=True)
    ap.add_argument("--points", required=True)
    ap.add_argument("--deadline", type=float, default=80)
    ap.add_argument("--nogc", action="store_true", help="also time each point with gc disabled")
    a = ap.parse_args()
    root = HERE  # hf_decode reads models/ from the repository root
    while not os.path.isdir(os.path.join(root, "models")) and root != "/":
        root = os.path.dirname(root)
    os.chdir(root)
    env = {k: v for k, v in os.environ.items() if k.startswith("PYTORCH") or k.startswith("CUDA")}
    import transformers
    res = dict(meta=dict(torch=torch.__version__, transformers=transformers.__version__, env=env,
                         cpus=os.cpu_count(), threads=torch.get_num_threads(), loadavg=os.getloadavg()),
               points=[])

    def save():
        json.dump(res, open(a.out, "w"), indent=1)
    t = time.perf_counter()
    m, cfg = hf_decode.build(a.model)
    res["meta"]["build_s"] = time.perf_counter() - t
    res["meta"]["mem_after_build"] = stats()
    log(f"{a.model} built in {res['meta']['build_s']:.1f}s; {env}")
    save()
    with torch.no_grad():
        for p in a.points.split(","):
            if time.perf_counter() - T0 > a.deadline:
                log(f"deadline before {p}")
                break
            b, ctx = map(int, p.split("x"))
            try:
                r = measure(m, cfg, b, ctx, tag="")
                r["model"] = a.model
                if a.nogc:
                    gc.disable()
                    r2 = measure(m, cfg, b, ctx, n=6, tag="nogc")
                    gc.enable()
                    r["nogc_wall_med_ms"] = r2["wall_med_ms"]
                    r["nogc_ret_med_ms"] = r2["ret_med_ms"]
                res["points"].append(r)
                save()
                pr = r["profile"]
                top = ", ".join(f"{k} {v['n']:.0f}/{v['total_us'] / 1e3:.1f}ms/max{v['max_us']:.0f}"
                                for k, v in list(pr["runtime_calls"].items())[:6])
                md = r["mem_delta_per_step"]
                psd = r["proc_stat_delta"]
                log(f"{a.model} b{b} ctx{ctx}: wall {r['wall_med_ms']:.1f} ret {r['ret_med_ms']:.1f} "
                    f"thread_cpu {sorted(r['thread_cpu_ms'])[len(r['thread_cpu_ms']) // 2]:.1f} "
                    f"steal {psd['steal']} invol_cs {psd['invol_cs']} vol_cs {psd['vol_cs']} mhz {r['cpu_mhz']} "
                    f"kern {pr['kernel_ms']:.1f} busy {pr['gpu_busy_ms']:.1f} | syncs {r['sync_warnings']} | "
                    f"dev_alloc {md['num_device_alloc']:.1f} dev_free {md['num_device_free']:.1f} "
                    f"retries {md['num_alloc_retries']:.1f} segs {md['segment.all.current']} | {top} | "
                    f"longs {len(pr['long_calls'])} {pr['long_calls'][:3]}"
                    + (f" | nogc wall {r['nogc_wall_med_ms']:.1f}" if a.nogc else ""))
            except Exception:
                log(f"{p} failed\n{traceback.format_exc()}")
                res["points"].append(dict(batch=b, ctx=ctx, error=traceback.format_exc()[-2000:]))
                save()
                torch.cuda.empty_cache()
    save()
    log("done")


if __name__ == "__main__":
    main()
