#!/usr/bin/env python3
"""Where the host time of a Hugging Face step goes (issue 10: the compiled graph's gap, the eager
wall time). One mode per process (a fresh process: dynamo's and the cudagraph tree's state do not
carry over); every record is appended as one JSON line to --out.

    host_probe.py compiled KEY LAYERS B:CTX[,B:CTX...] --out FILE
    host_probe.py eager KEY L1[,L2] B:CTX --out FILE [--generate] [--static-prefill CTX,CTX]
    host_probe.py source --out FILE    (transformers' generate(): where it compiles)

The trick that separates host from device: `torch.cuda._sleep` queues a GPU spin of a few ms
before the timed call, so the host never waits for the GPU and the GPU never waits for the host
inside the timed window. Then
- `host_call_s`: perf_counter around the call, returning before the GPU ran it (the host's work);
- `graph_pure_s` (compiled): CUDA events around the call, now the graph's own time on the GPU
  (its kernels and the gaps between them, with no host time in it);
- `pre_replay_s` / `post_replay_s` (compiled): host time from the call to CUDAGraph.replay and
  from the replay's return to the call's (torch.cuda.CUDAGraph.replay wrapped), `replays` per call.
The unfilled timing (`wall_s`, `device_s`) is hf_compiled.py's / hf_decode.py's.
Counts (eager): kernels (profiler), aten ops reaching the dispatcher (TorchDispatchMode; views by
OpOverload.is_view), nn.Module calls (a global forward pre-hook), Python function calls (cProfile).
"""
import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, "validation/scripts/production")
import torch  # noqa: E402

import hf_decode  # noqa: E402

SPIN_CYCLES_PER_S = 1.98e9  # torch.cuda._sleep counts SM clock cycles (H200 max clock)


def spin(seconds):
    torch.cuda._sleep(int(seconds * SPIN_CYCLES_PER_S))


def emit(path, rec):
    with open(path, "a") as f:
        f.write(json.dumps(rec) + "\n")
    print(json.dumps({k: v for k, v in rec.items() if not isinstance(v, (list, dict))}), flush=True)


def cprofile_top(fn, n, before, after, k=25):
    pr = cProfile.Profile()
    for _ in range(n):
        before()
        pr.enable()
        fn()
        pr.disable()
        torch.cuda.synchronize()
        after()
    s = io.StringIO()
    st = pstats.Stats(pr, stream=s)
    st.sort_stats("tottime").print_stats(k)
    return st.total_calls / n, s.getvalue().splitlines()[-(k + 8):]


class Replays:
    """torch.cuda.CUDAGraph.replay wrapped: (start, end) perf_counter of each replay."""

    def __init__(self):
        self.t = []
        orig = torch.cuda.CUDAGraph.replay
        me = self

        def replay(g, *a, **kw):
            t0 = time.perf_counter()
            r = orig(g, *a, **kw)
            me.t.append((t0, time.perf_counter()))
            return r
        try:
            torch.cuda.CUDAGraph.replay = replay
        except (AttributeError, TypeError) as e:  # replays then stay uncounted (replays_per_call 0)
            print(f"CUDAGraph.replay not wrapped: {e}", flush=True)


def timed(fn, n, between, fill):
    """Median (wall, events, host_call) over n calls; fill > 0 queues a GPU spin first."""
    wall, dev, host = [], [], []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        if fill:
            spin(fill)
        t0 = time.perf_counter()
        a.record()
        fn()
        t1 = time.perf_counter()
        b.record()
        torch.cuda.synchronize()
        wall.append(time.perf_counter() - t0)
        host.append(t1 - t0)
        dev.append(a.elapsed_time(b) * 1e-3)
        between()
    return statistics.median(wall), statistics.median(dev), statistics.median(host), host


def compiled(a):
    import hf_compiled
    a.layers = int(a.layers)
    rep = Replays()
    m, cfg = hf_compiled._build(a.key, a.layers)
    fwd = torch.compile(m.forward, mode="reduce-overhead", fullgraph=True, dynamic=False)
    n_param = sum(1 for _ in m.parameters())
    n_buf = sum(1 for _ in m.buffers())
    order = 0
    for pt in a.points.split(","):
        b, ctx = (int(x) for x in pt.split(":"))
        steps = 72
        with torch.no_grad():
            cache, step, between = hf_compiled.decode_loop(m, cfg, fwd, b, ctx, steps)
            tc = time.perf_counter()
            for _ in range(3):
                step()
                torch.cuda.synchronize()
                between()
            tc = time.perf_counter() - tc
            for _ in range(3):
                step()
                torch.cuda.synchronize()
                between()
            wall, dev, host0, _ = timed(step, 15, between, 0)
            rep.t.clear()
            walls = []
            pre, post, nrep = [], [], []
            fill = 4 * wall + 2e-3
            wall_f, dev_pure, host_call, hosts = [], [], [], []
            for _ in range(15):
                rep.t.clear()
                ev = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                torch.cuda.synchronize()
                spin(fill)
                t0 = time.perf_counter()
                ev[0].record()
                step()
                t1 = time.perf_counter()
                ev[1].record()
                torch.cuda.synchronize()
                host_call.append(t1 - t0)
                dev_pure.append(ev[0].elapsed_time(ev[1]) * 1e-3)
                nrep.append(len(rep.t))
                if rep.t:
                    pre.append(rep.t[0][0] - t0)
                    post.append(t1 - rep.t[-1][1])
                between()
            kt, cats, kcount, top = hf_compiled._profile(step, 3, between)
            calls, prof = cprofile_top(step, 8, lambda: spin(fill), between)
        med = statistics.median
        rec = dict(mode="compiled", model=a.key, layers=a.layers, batch=b, ctx=ctx, kv_len=ctx + steps,
                   order_in_process=order, params=n_param, buffers=n_buf, cache_tensors=2 * a.layers,
                   wall_s=wall, device_s=dev, kernel_s=kt, kernels_per_step=kcount,
                   graph_pure_s=med(dev_pure), host_call_s=med(host_call), host_call_all_s=host_call,
                   pre_replay_s=med(pre) if pre else None, post_replay_s=med(post) if post else None,
                   replays_per_call=med(nrep), py_calls_per_call=calls, compile_s=tc,
                   kernel_by_category_s=cats, top_kernels_s=top, cprofile=prof)
        emit(a.out, rec)
        order += 1
        del cache
        torch.cuda.empty_cache()


class DispatchCount:
    def __init__(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        me = self
        self.total, self.views, self.names = 0, 0, {}

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                me.total += 1
                if getattr(func, "is_view", False):
                    me.views += 1
                n = func.overloadpacket.__name__
                me.names[n] = me.names.get(n, 0) + 1
                return func(*args, **(kwargs or {}))
        self.mode = Mode


def eager(a):
    depths = [int(x) for x in a.layers.split(",")]
    for i, depth in enumerate(depths):
        a1 = argparse.Namespace(**vars(a))
        a1.layers = depth
        if i:
            a1.generate, a1.static_prefill = False, ""
        eager_one(a1)
        torch.cuda.empty_cache()


def eager_one(a):
    b, ctx = (int(x) for x in a.points.split(":"))
    m, cfg = hf_decode.build_cut(hf_decode.hf_config(a.key), a.layers)
    with torch.no_grad():
        step, between, cache, ok = hf_decode._decode_setup(m, cfg, b, ctx, contiguous=True)
        wall, _, _ = hf_decode._wall(step, 15, 3, between)
        _, _, host_call, _ = timed(step, 15, between, 4 * wall + 5e-3)
        kt, cats, kcount, top = hf_decode._kernel_profile(step, 3, between)
        dc = DispatchCount()
        with dc.mode():
            step()
        between()
        torch.cuda.synchronize()
        mods = [0]
        h = torch.nn.modules.module.register_module_forward_pre_hook(lambda mod, inp: mods.__setitem__(0, mods[0] + 1))
        step()
        h.remove()
        between()
        calls, prof = cprofile_top(step, 5, lambda: spin(4 * wall + 5e-3), between)
        rec = dict(mode="eager", model=a.key, layers=a.layers, batch=b, ctx=ctx, ok=ok, wall_s=wall, host_call_s=host_call,
                   kernel_s=kt, kernels_per_step=kcount, aten_ops=dc.total, aten_views=dc.views,
                   aten_names=dict(sorted(dc.names.items(), key=lambda kv: -kv[1])), module_calls=mods[0],
                   py_calls_per_call=calls, kernel_by_category_s=cats, cprofile=prof)
        emit(a.out, rec)
        del step, between, cache
        if a.generate:
            ids = torch.randint(0, cfg.vocab_size, (b, ctx), device="cuda")
            kw = dict(do_sample=False, use_cache=True, pad_token_id=0)
            res = {}
            for n_new in (1, 33):
                ts = []
                for _ in range(3):
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    m.generate(input_ids=ids, max_new_tokens=n_new, min_new_tokens=n_new, **kw)
                    torch.cuda.synchronize()
                    ts.append(time.perf_counter() - t0)
                res[n_new] = statistics.median(ts)
            emit(a.out, dict(mode="generate", model=a.key, layers=a.layers, batch=b, ctx=ctx,
                             generate_1_s=res[1], generate_33_s=res[33], per_decode_step_s=(res[33] - res[1]) / 32,
                             forward_wall_s=wall))
        if a.static_prefill:
            import hf_compiled
            for pctx in (int(x) for x in a.static_prefill.split(",")):
                cache = hf_compiled._static_cache(cfg, 1, pctx + 64)
                ids = torch.randint(0, cfg.vocab_size, (1, pctx), device="cuda")
                pos = torch.arange(pctx, device="cuda")

                def pf():
                    return m(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1,
                             cache_position=pos, position_ids=pos.unsqueeze(0))
                w, _, _ = hf_decode._wall(pf, 5, 2, cache.reset)
                kt, cats, kcount, top = hf_decode._kernel_profile(pf, 2, cache.reset)
                emit(a.out, dict(mode="prefill_static_eager", model=a.key, layers=a.layers, batch=1, ctx=pctx,
                                 max_cache_len=pctx + 64, wall_s=w, kernel_s=kt, kernels_per_step=kcount,
                                 kernel_by_category_s=cats, top_kernels_s=top))
                del cache
                torch.cuda.empty_cache()


def source(a):
    """The lines of transformers' generation/utils.py that decide what generate() compiles."""
    import transformers
    p = os.path.join(os.path.dirname(transformers.__file__), "generation", "utils.py")
    lines = open(p).read().splitlines()
    keep = [f"{i + 1}: {ln}" for i, ln in enumerate(lines)
            if any(k in ln for k in ("compile", "is_prefill", "prefill", "model_forward", "outputs = self("))]
    cfgp = os.path.join(os.path.dirname(transformers.__file__), "generation", "configuration_utils.py")
    cl = open(cfgp).read().splitlines()
    ckeep = [f"{i + 1}: {ln}" for i, ln in enumerate(cl) if any(k in ln for k in ("mode", "fullgraph", "dynamic", "class CompileConfig"))]
    emit(a.out, dict(mode="source", transformers=transformers.__version__, torch=torch.__version__, path=p,
                     utils_lines=keep, compile_config_lines=ckeep[:60]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["compiled", "eager", "source"])
    ap.add_argument("key", nargs="?")
    ap.add_argument("layers", nargs="?")  # eager: a comma list of depths
    ap.add_argument("points", nargs="?")
    ap.add_argument("--out", required=True)
    ap.add_argument("--generate", action="store_true")
    ap.add_argument("--static-prefill", default="")
    a = ap.parse_args()
    {"compiled": compiled, "eager": eager, "source": source}[a.mode](a)


if __name__ == "__main__":
    main()
