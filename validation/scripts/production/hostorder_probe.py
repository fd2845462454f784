#!/usr/bin/env python3
"""Why the same compiled decode call takes 162-658 us of host before its graph replay (issue 10,
branch hostorder: validation/results/h200-hostorder).

h200-compiled's seven steps ran in ONE process (run_compiled.py: one model built and torch.compile'd
per step, torch._dynamo.reset() after each) and hf_compiled.measure_point timed each step
(`_time`: wall and CUDA events) and then profiled it (`_profile`: three torch.profiler sessions).
So step 0 was the only step timed before any profiler session had run in the process. This probe
re-runs those steps in a chosen order, one model a step as run_compiled.py did, and per step times:

- `A` (hf_compiled._time's protocol, GPU idle when the call starts): per call `wall` (synchronized),
  `device` (CUDA events around the call: host before the replay + the replay), `host_call`
  (perf_counter around the call, no sync), `pre_replay` / `post_replay` (CUDAGraph.replay wrapped);
- `S` (host_probe.py's trick: a GPU spin queued first): `graph_pure` (the replay alone on the GPU),
  the host's own time and its split by stage (chost14_probe's wrappers: call -> dynamo's compiled fn
  -> Inductor -> tree manager -> node -> replay), Python's gc during the call;
- `G`: as S with gc disabled;
then, with --profile, hf_compiled._profile (3 sessions: `kernel_s`, as the run of record did), and
`A`, `S` again (`A_after`, `S_after`): the same step before and after the profiler.
Per step also the process's state: profiler sessions so far, steps measured so far, gc objects,
RSS, gc collections so far.

    hostorder_probe.py --order 0,1,2,3,4,5,6 [--profile] --tag T --out FILE [--deadline S]

Each step's record is appended to FILE as one JSON line at once (a later failure keeps it).
"""
import argparse
import gc
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, "validation/scripts/production")
import torch  # noqa: E402

import chost14_probe as cp  # noqa: E402
import hf_compiled  # noqa: E402
from host_probe import spin  # noqa: E402

pc = time.perf_counter
# h200-compiled/hf.json's steps, in the order run_compiled.py measured them
STEPS7 = [("llama3-8b", 1, 512), ("llama3-8b", 16, 2048), ("llama3-8b", 64, 1024), ("llama2-7b", 1, 2048),
          ("llama2-7b", 32, 512), ("qwen2.5-7b", 8, 1024), ("qwen2.5-7b", 4, 4096)]
# The first call (2026-12-03) cycled the position over ctx .. ctx + 31 of a cache of ctx + 40 slots
# and every process stopped on Inductor's device assert (`index out of bounds: 0 <= tmp7 < kv_len`)
# within calls 27-41 of its first step (the spin variant): after the position wrapped back to ctx
# (call 33) or once the calls outnumbered the slots (call 41); h200-chost14's second call (56
# positions, 64 slots) stopped the same way past its 56th call. Either way: here the position only
# rises, one new slot a call, and a step makes fewer calls than the slots (CALLS_MAX, checked).
SLOTS = 128
CALLS_MAX = SLOTS - 8
PROFILER_SESSIONS = [0]


def decode_loop(m, cfg, fwd, b, ctx):
    cache = hf_compiled._static_cache(cfg, b, ctx + SLOTS)
    ids = torch.randint(0, cfg.vocab_size, (b, ctx), device="cuda")
    m(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1,
      cache_position=torch.arange(ctx, device="cuda"))
    nxt = torch.randint(0, cfg.vocab_size, (b, 1), device="cuda")
    positions = [torch.tensor([ctx + i], device="cuda") for i in range(CALLS_MAX)]
    st = {"i": 0}

    def step():
        j = st["i"]
        if j >= CALLS_MAX:
            raise RuntimeError(f"call {j}: past the cache's slots (CALLS_MAX {CALLS_MAX})")
        torch.compiler.cudagraph_mark_step_begin()
        return fwd(input_ids=nxt, past_key_values=cache, use_cache=True, logits_to_keep=1,
                   cache_position=positions[j], position_ids=positions[j].unsqueeze(0).expand(b, 1))

    def between():
        st["i"] += 1
    return cache, step, between


def timed_idle(step, between, n=16, warm=2):
    """hf_compiled._time plus the host's own time of the call and the replay wrapper's stamps."""
    for _ in range(warm):
        step()
        torch.cuda.synchronize()
        between()
    rows = []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        cp.EV.clear()
        cp.GCE.clear()
        t0 = pc()
        a.record()
        step()
        t1 = pc()
        b.record()
        torch.cuda.synchronize()
        t2 = pc()
        r = cp.split(t0, t1, list(cp.EV), list(cp.GCE))
        r["wall"] = t2 - t0
        r["device"] = a.elapsed_time(b) * 1e-3
        rows.append(r)
        between()
    keys = sorted({k for r in rows for k in r})
    med = {k: statistics.median([r.get(k, 0.0) for r in rows]) for k in keys}
    med["device_all"] = [r["device"] for r in rows]
    med["pre_replay_all"] = [r.get("pre_replay") for r in rows]
    return med


def wrap_cfn():
    """chost14_probe.wrap_compiled_fns, undoable: returns the (dict, key, original) to restore.
    The wrapper (torch._dynamo.disable'd) costs host time of its own, so `A` runs without it."""
    done = []
    for mod in list(sys.modules.values()):
        d = getattr(mod, "__dict__", None)
        if not isinstance(d, dict):
            continue
        for k in [k for k in d if isinstance(k, str) and k.startswith("__compiled_fn")]:
            f = d[k]
            if getattr(f, "_chost14", False):
                continue

            def w(*a, _f=f, **kw):
                cp.EV.append(("cfn>", pc()))
                try:
                    return _f(*a, **kw)
                finally:
                    cp.EV.append(("cfn<", pc()))
            w = torch._dynamo.disable(w)
            w._chost14 = True
            d[k] = w
            done.append((d, k, f))
    return done


def unwrap(done):
    for d, k, f in done:
        d[k] = f


def state(m=None):
    s = dict(profiler_sessions=PROFILER_SESSIONS[0], gc_objects=len(gc.get_objects()),
             gc_collections=[g["collections"] for g in gc.get_stats()], gc_count=list(gc.get_count()))
    try:
        s["rss_mb"] = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except Exception:
        pass
    try:
        from torch._inductor import cudagraph_trees as ct
        mgr = ct.get_manager(torch.cuda.current_device(), False)
        s["tree_roots"] = None if mgr is None else sum(len(v) for v in getattr(mgr, "roots", {}).values())
    except Exception as e:
        s["tree_roots"] = f"{type(e).__name__}"
    return s


def profile(step, between):
    kt, cats, kcount, top = hf_compiled._profile(step, 3, between)
    PROFILER_SESSIONS[0] += 3
    return kt, kcount


def one_step(key, b, ctx, layers, do_profile, rec, extra=0):
    m, cfg = hf_compiled._build(key, layers)
    fwd = torch.compile(m.forward, mode="reduce-overhead", fullgraph=True, dynamic=False)
    with torch.no_grad():
        cache, step, between = decode_loop(m, cfg, fwd, b, ctx)
        tc = pc()
        out = step()
        rec["ok"] = bool(torch.isfinite(out.logits.float()).all())
        del out
        between()
        for _ in range(2):
            step()
            torch.cuda.synchronize()
            between()
        rec["compile_s"] = pc() - tc
        rec["state_before"] = state(m)
        rec["A"] = timed_idle(step, between)
        fill = 3 * rec["A"]["wall"] + 2e-3
        done = wrap_cfn()
        rec["wrapped_cfn"] = len(done)
        rec["S"], _ = cp.spun_calls(step, between, 12, fill)

        class NoGC:
            def __enter__(self):
                gc.disable()

            def __exit__(self, *a):
                gc.enable()
        rec["G"], _ = cp.spun_calls(step, between, 8, fill, NoGC)
        unwrap(done)
        if do_profile:
            rec["kernel_s"], rec["kernels_per_step"] = profile(step, between)
            rec["A_after"] = timed_idle(step, between)
            done = wrap_cfn()
            rec["S_after"], _ = cp.spun_calls(step, between, 12, fill)
            unwrap(done)
            for _ in range(min(extra, 12) // 3):  # 3 sessions each; the calls stay under CALLS_MAX
                profile(step, between)
            if extra:
                rec["extra_sessions"] = extra
                rec["A_extra"] = timed_idle(step, between)
        rec["state_after"] = state(m)
    del cache, step, m, fwd
    torch._dynamo.reset()
    torch.cuda.empty_cache()


def same_model(order, layers, do_profile, tag, out_path):
    """Several of STEPS7's shapes of ONE model under ONE torch.compile (no dynamo.reset between them):
    each shape's graph is recorded and timed in turn (A), then the first shape is timed again with
    every graph recorded (`A_again`: the graphs and cache entries recorded since, no profiler), then,
    with do_profile, after 3 profiler sessions on the last shape (`A_after_prof`). Tests whether the
    graphs a process has recorded (h200-host-probe's and the check sets' second shapes) cost host."""
    key = STEPS7[order[0]][0]
    assert all(STEPS7[i][0] == key for i in order), "one model"
    m, cfg = hf_compiled._build(key, layers)
    fwd = torch.compile(m.forward, mode="reduce-overhead", fullgraph=True, dynamic=False)
    live = []
    with torch.no_grad():
        for pos, i in enumerate(order):
            _, b, ctx = STEPS7[i]
            rec = dict(tag=tag, mode="same_model", step=i, position=pos, model=key, batch=b, ctx=ctx,
                       kv_len=ctx + SLOTS, layers=layers, profile=do_profile)
            try:
                cache, step, between = decode_loop(m, cfg, fwd, b, ctx)
                tc = pc()
                for _ in range(3):
                    step()
                    torch.cuda.synchronize()
                    between()
                rec["compile_s"] = pc() - tc
                rec["state_before"] = state(m)
                rec["A"] = timed_idle(step, between)
                live.append((i, cache, step, between))
            except Exception as e:
                rec["error"] = f"{type(e).__name__}: {str(e)[:300]}"
            with open(out_path, "a") as f:
                f.write(json.dumps(rec) + "\n")
            print(f"[{tag}] step {i} shape {pos}: pre {rec.get('A', {}).get('pre_replay', 0) * 1e6:.0f} us "
                  f"{rec.get('error', '')}", flush=True)
            if "error" in rec:
                return
        i0, _, step0, between0 = live[0]
        rec = dict(tag=tag, mode="same_model", step=i0, position=len(order), model=key, again=True,
                   graphs=len(live), layers=layers)
        try:
            rec["state_before"] = state(m)
            rec["A_again"] = timed_idle(step0, between0)
            if do_profile:
                profile(live[-1][2], live[-1][3])
                rec["A_after_prof"] = timed_idle(step0, between0)
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {str(e)[:300]}"
        with open(out_path, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(f"[{tag}] step {i0} again with {len(live)} graphs: pre "
              f"{rec.get('A_again', {}).get('pre_replay', 0) * 1e6:.0f} us, after profiler "
              f"{rec.get('A_after_prof', {}).get('pre_replay', 0) * 1e6:.0f} us {rec.get('error', '')}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--same-model", action="store_true", help="the order's shapes under one compile (same_model)")
    ap.add_argument("--order", default="0,1,2,3,4,5,6")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--extra-sessions", type=int, default=0,
                    help="after the last step's A_after: this many more profiler sessions (in threes, at most 12), then A again")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--tag", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline", type=float, default=1e9, help="seconds: no new step after this")
    a = ap.parse_args()
    t_start = pc()
    torch.cuda.set_device(0)
    torch._dynamo.config.cache_size_limit = 64
    cp.install()
    order = [int(x) for x in a.order.split(",")]
    if a.same_model:
        same_model(order, a.layers, a.profile, a.tag, a.out)
        return
    for pos, i in enumerate(order):
        if pc() - t_start > a.deadline:
            print(f"[{a.tag}] deadline before step {i}", flush=True)
            break
        key, b, ctx = STEPS7[i]
        rec = dict(tag=a.tag, step=i, position=pos, model=key, batch=b, ctx=ctx, kv_len=ctx + SLOTS,
                   layers=a.layers, profile=a.profile, t_process_s=pc() - t_start,
                   torch=torch.__version__, teardown_cupti=os.environ.get("TEARDOWN_CUPTI"))
        try:
            one_step(key, b, ctx, a.layers, a.profile, rec,
                     a.extra_sessions if pos == len(order) - 1 else 0)
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {str(e)[:300]}"
        rec["teardown_cupti_after"] = os.environ.get("TEARDOWN_CUPTI")
        with open(a.out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        A, S = rec.get("A", {}), rec.get("S", {})
        Aa = rec.get("A_after", {})
        print(f"[{a.tag} {pc() - t_start:6.1f}s] step {i} pos {pos} {key} b{b} ctx{ctx}: "
              f"dev {A.get('device', 0) * 1e6:.0f} pure {S.get('graph_pure', 0) * 1e6:.0f} "
              f"preA {A.get('pre_replay', 0) * 1e6:.0f} preS {S.get('pre_replay', 0) * 1e6:.0f} "
              f"host {A.get('host_call', 0) * 1e6:.0f} | after prof: dev {Aa.get('device', 0) * 1e6:.0f} "
              f"pre {Aa.get('pre_replay', 0) * 1e6:.0f} | {rec.get('error', '')}", flush=True)
        if "error" in rec and "CUDA" in rec["error"]:
            break  # a device assert poisons the context


if __name__ == "__main__":
    main()
