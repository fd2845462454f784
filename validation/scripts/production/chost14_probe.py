#!/usr/bin/env python3
"""What the host time of a compiled decode call before CUDAGraph.replay scales with (issue 10, task
chost14: validation/results/h200-chost14). One model cut to LAYERS layers per process; every shape
is compiled (and its graph recorded) first, then the process waits until chost14_run.py gives it
the machine alone (file `go_TAG` in --dir), measures, writes `done_TAG` and exits.

    chost14_probe.py KEY LAYERS B:CTX[,B:CTX] --tag T --dir D --out FILE

Per shape (decode_loop below: hf_compiled's, the position cycling inside the cache; torch.compile reduce-overhead, fullgraph, StaticCache), with a
GPU spin queued before each timed call (host_probe.py's trick: the host never waits for the GPU):
- `base`: 15 calls; per call the host's time split at timestamps taken by wrappers installed
  before the compile: call -> dynamo's `__compiled_fn_N` (mark_step_begin, guard evaluation, the
  transformed bytecode gathering the graph's inputs) -> Inductor's CompiledFxGraph.__call__ (AOT
  autograd's runtime wrappers) -> CUDAGraphTreeManager.run -> CUDAGraphNode.run (the tree's
  choice of node) -> CUDAGraph.replay (the node's checks, input copies) -> return; plus the time
  inside check_invariants / check_static_inputs_are_stable / _copy_inputs_and_remove_from_src /
  reconstruct_outputs, and Python's garbage collections during the call (gc.callbacks);
- `noguard`: 15 calls under torch.compiler.set_stance(skip_guard_eval_unsafe=True) (dynamo runs
  only the guards that tell its cache entries apart): base - noguard = guard evaluation;
- `nogc`: 15 calls with gc disabled;
- `wall_s`: 10 synchronized calls without the spin (hf_compiled._time);
- cProfile of 5 calls (Python calls per call, top functions).
A process with two shapes measures A, B, then A again (`measure_order`). Counts per process:
parameters, buffers, dynamo's guards (leaf guards by type, per cache entry), the cudagraph tree's
nodes and their static / non-static inputs and outputs, dynamo's counters.
"""
import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import statistics
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, "validation/scripts/production")
import torch  # noqa: E402

import hf_compiled  # noqa: E402
from host_probe import emit, spin  # noqa: E402

pc = time.perf_counter
EV = []   # (label, perf_counter) appended by the wrappers
GCE = []  # (phase, generation, perf_counter) from gc.callbacks
WRAPPED = []


def _wrap(owner, name, label):
    f = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
    if f is None and isinstance(owner, type):
        f = getattr(owner, name, None)
    if f is None or not callable(f) or isinstance(f, (staticmethod, classmethod)):
        return

    def w(*a, **k):
        EV.append((label + ">", pc()))
        try:
            return f(*a, **k)
        finally:
            EV.append((label + "<", pc()))
    w.__wrapped__ = f
    try:
        setattr(owner, name, w)
        WRAPPED.append(label)
    except (AttributeError, TypeError) as e:
        print(f"not wrapped {label}: {e}", flush=True)


def install():
    """Before the compile: the tree manager's run is bound (functools.partial) when a function is
    added, so it must be wrapped first."""
    from torch._inductor import cudagraph_trees as ct
    for n in ("run", "_run", "execute_node", "try_end_curr_recording", "try_end_curr_warmup",
              "can_start_new_generation", "in_new_torch_compile_invocation", "apply_checkpoint_execution_state_in_allocator"):
        _wrap(ct.CUDAGraphTreeManager, n, "mgr." + n)
    for n in ("run", "run_graph", "check_invariants", "check_static_inputs_are_stable",
              "_copy_inputs_and_remove_from_src", "reconstruct_outputs", "prepare_alias_info_for_tensor"):
        _wrap(ct.CUDAGraphNode, n, "node." + n)
    try:
        from torch._inductor.output_code import CompiledFxGraph
    except ImportError:
        from torch._inductor.codecache import CompiledFxGraph
    _wrap(CompiledFxGraph, "__call__", "inductor")
    _wrap(torch.cuda.CUDAGraph, "replay", "replay")
    gc.callbacks.append(lambda phase, info: GCE.append((phase, info.get("generation"), pc())))


def wrap_compiled_fns():
    """dynamo installs each compiled graph as a global `__compiled_fn_N` of the traced frame's
    module; the transformed bytecode looks it up at every call."""
    for mod in list(sys.modules.values()):
        d = getattr(mod, "__dict__", None)
        if not isinstance(d, dict):
            continue
        for k in [k for k in d if isinstance(k, str) and k.startswith("__compiled_fn")]:
            f = d[k]
            if getattr(f, "_chost14", False):
                continue

            def w(*a, _f=f, **kw):
                EV.append(("cfn>", pc()))
                try:
                    return _f(*a, **kw)
                finally:
                    EV.append(("cfn<", pc()))
            w = torch._dynamo.disable(w)  # the transformed bytecode runs under dynamo's frame hook
            w._chost14 = True
            d[k] = w
            WRAPPED.append(f"cfn:{mod.__name__}.{k}")


SLOTS = 64  # cache slots past ctx; positions cycle over the first SLOTS - 8 of them


def decode_loop(m, cfg, fwd, b, ctx):
    """hf_compiled.decode_loop, except that the decoded position cycles over ctx .. ctx + SLOTS - 9
    (rewriting a slot is harmless for timing). The first device run (2026-12-02) clamped the
    position at the cache's last slot once a shape had made more calls than slots, and every
    process stopped on an Inductor device assert (`index out of bounds: 0 <= tmp7 < 576`): the
    likelier of the two causes named in validation/results/h200-chost14/README.md."""
    cache = hf_compiled._static_cache(cfg, b, ctx + SLOTS)
    ids = torch.randint(0, cfg.vocab_size, (b, ctx), device="cuda")
    m(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1,
      cache_position=torch.arange(ctx, device="cuda"))
    nxt = torch.randint(0, cfg.vocab_size, (b, 1), device="cuda")
    positions = [torch.tensor([ctx + i], device="cuda") for i in range(SLOTS - 8)]
    st = {"i": 0}

    def step():
        pos = positions[st["i"] % len(positions)]
        torch.compiler.cudagraph_mark_step_begin()
        return fwd(input_ids=nxt, past_key_values=cache, use_cache=True, logits_to_keep=1,
                   cache_position=pos, position_ids=pos.unsqueeze(0).expand(b, 1))

    def between():
        st["i"] += 1
    return cache, step, between


def split(t0, t1, ev, gce):
    """One call's host time by stage (seconds), from the wrappers' timestamps."""
    first, last, inside = {}, {}, {}
    stack = {}
    for lab, t in ev:
        base, d = lab[:-1], lab[-1]
        if d == ">":
            first.setdefault(base, t)
            stack.setdefault(base, []).append(t)
        else:
            last[base] = t
            if stack.get(base):
                inside[base] = inside.get(base, 0.0) + t - stack[base].pop()
    s = {"host_call": t1 - t0, "replays": sum(1 for lab, _ in ev if lab == "replay>")}
    chain = [("t0", t0), ("cfn", first.get("cfn")), ("inductor", first.get("inductor")),
             ("mgr", first.get("mgr.run")), ("node", first.get("node.run")), ("replay", first.get("replay"))]
    prev = None
    for name, t in chain:
        if t is None:
            continue
        if prev is not None:
            s[f"{prev[0]}->{name}"] = t - prev[1]
        prev = (name, t)
    if "replay" in first:
        s["pre_replay"] = first["replay"] - t0
        s["replay_call"] = last.get("replay", first["replay"]) - first["replay"]
        s["post_replay"] = t1 - last.get("replay", first["replay"])
    for k, v in inside.items():
        s["in:" + k] = v
    starts = [t for ph, _, t in gce if ph == "start"]
    stops = [t for ph, _, t in gce if ph == "stop"]
    s["gc_n"] = len(starts)
    s["gc_s"] = sum(b - a for a, b in zip(starts, stops))
    s["gc_gen2"] = sum(1 for ph, g, _ in gce if ph == "start" and g == 2)
    return s


def spun_calls(step, between, n, fill, ctx=None):
    rows, pure = [], []
    for _ in range(n):
        ev = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        spin(fill)
        EV.clear()
        GCE.clear()
        if ctx is not None:
            with ctx():
                t0 = pc()
                ev[0].record()
                step()
                t1 = pc()
        else:
            t0 = pc()
            ev[0].record()
            step()
            t1 = pc()
        ev[1].record()
        torch.cuda.synchronize()
        rows.append(split(t0, t1, list(EV), list(GCE)))
        pure.append(ev[0].elapsed_time(ev[1]) * 1e-3)
        between()
    keys = sorted({k for r in rows for k in r})
    med = {k: statistics.median([r.get(k, 0.0) for r in rows]) for k in keys}
    med["graph_pure"] = statistics.median(pure)
    return med, [r["pre_replay"] for r in rows if "pre_replay" in r]


def measure(st, rec):
    """Fills rec variant by variant (each in its own try: a failure keeps what came before)."""
    step, between = st["step"], st["between"]
    wall, q1, q3, dev = hf_compiled._time(step, 10, 2, between)
    fill = 3 * wall + 2e-3
    rec.update(wall_s=wall, wall_q1_s=q1, wall_q3_s=q3, device_s=dev)

    def noguard():
        return torch.compiler.set_stance("default", skip_guard_eval_unsafe=True)

    class NoGC:
        def __enter__(self):
            gc.disable()

        def __exit__(self, *a):
            gc.enable()
    for name, ctx in (("base", None), ("noguard", noguard), ("nogc", NoGC)):
        try:
            rec[name], rec[name + "_pre_all"] = spun_calls(step, between, 15, fill, ctx)
        except Exception as e:
            rec[name + "_error"] = f"{type(e).__name__}: {str(e)[:300]}"
    pr = cProfile.Profile()
    for _ in range(5):
        torch.cuda.synchronize()
        spin(fill)
        pr.enable()
        step()
        pr.disable()
        torch.cuda.synchronize()
        between()
    s = io.StringIO()
    ps = pstats.Stats(pr, stream=s)
    ps.sort_stats("tottime").print_stats(25)
    rec["py_calls_per_call"] = ps.total_calls / 5
    rec["cprofile_tottime"] = s.getvalue().splitlines()[-33:]


def guard_counts(m):
    out = []
    try:
        try:
            from torch._dynamo.eval_frame import _debug_get_cache_entry_list
        except ImportError:
            from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list
        codes = []
        try:
            from torch._dynamo.convert_frame import input_codes
            codes = [r() for r in getattr(input_codes, "seen", [])]
        except Exception:
            pass
        f = getattr(type(m).forward, "__func__", type(m).forward)
        while f is not None:  # the decorated forward and what it wraps
            codes.append(getattr(f, "__code__", None))
            f = getattr(f, "__wrapped__", None)
        seen = set()
        for c in codes:
            if c is None or id(c) in seen:
                continue
            seen.add(id(c))
            if c is None:
                continue
            try:
                entries = list(_debug_get_cache_entry_list(c))
            except Exception:
                entries = []
            for i, e in enumerate(entries):
                gm = e.guard_manager
                root = getattr(gm, "root", gm)
                types_ = {}

                def walk(mg):
                    n, k = 0, 1
                    for g in mg.get_leaf_guards():
                        t = type(g).__name__
                        types_[t] = types_.get(t, 0) + 1
                        n += 1
                    for ch in mg.get_child_managers():
                        a, b = walk(ch)
                        n += a
                        k += b
                    return n, k
                try:
                    leaves, managers = walk(root)
                except Exception as ex:
                    leaves, managers = None, f"{type(ex).__name__}: {ex}"
                try:
                    lines = len(str(gm).splitlines())
                except Exception:
                    lines = None
                out.append(dict(code=f"{c.co_name}:{c.co_firstlineno}", entry=i, leaf_guards=leaves,
                                managers=managers, guard_types=types_, str_lines=lines))
    except Exception as e:
        out.append(dict(error=f"{type(e).__name__}: {str(e)[:300]}"))
    return out


def tree_counts():
    out = []
    try:
        from torch._inductor import cudagraph_trees as ct
        mgr = ct.get_manager(torch.cuda.current_device(), False)
        roots = getattr(mgr, "roots", {})
        todo = [n for lst in roots.values() for n in lst]
        while todo:
            n = todo.pop()
            ln = lambda a: len(getattr(n, a)) if hasattr(getattr(n, a, None), "__len__") else None  # noqa: E731
            out.append(dict(static_inputs=ln("static_input_idxs"), non_static_inputs=ln("non_static_input_idx"),
                            static_data_ptrs=ln("static_input_data_ptrs"), outputs=ln("outputs_weakrefs"),
                            expanded_dims=ln("expanded_dims"), depth=getattr(n, "depth", None)))
            todo.extend(c for lst in getattr(n, "children", {}).values() for c in lst)
    except Exception as e:
        out.append(dict(error=f"{type(e).__name__}: {str(e)[:300]}"))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("key")
    ap.add_argument("layers", type=int)
    ap.add_argument("shapes")
    ap.add_argument("--tag", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--wait", type=float, default=280)
    a = ap.parse_args()
    t_start = pc()
    torch.cuda.set_device(0)
    torch._dynamo.config.cache_size_limit = 64
    install()
    m, cfg = hf_compiled._build(a.key, a.layers)
    fwd = torch.compile(m.forward, mode="reduce-overhead", fullgraph=True, dynamic=False)
    states = []
    with torch.no_grad():
        for pt in a.shapes.split(","):
            b, ctx = (int(x) for x in pt.split(":"))
            cache, step, between = decode_loop(m, cfg, fwd, b, ctx)
            tc = pc()
            out = step()
            ok = bool(torch.isfinite(out.logits.float()).all()) and out.logits.shape[:2] == (b, 1)
            del out
            between()
            for _ in range(4):  # reduce-overhead records its graph on a later call
                step()
                torch.cuda.synchronize()
                between()
            states.append(dict(b=b, ctx=ctx, cache=cache, step=step, between=between, ok=ok, compile_s=pc() - tc))
        wrap_compiled_fns()
        EV.clear()
        counts = dict(params=sum(1 for _ in m.parameters()), buffers=sum(1 for _ in m.buffers()),
                      cache_tensors=2 * a.layers, guards=guard_counts(m), tree=tree_counts(),
                      dynamo_counters={k: {str(kk): vv for kk, vv in v.items()} for k, v in torch._dynamo.utils.counters.items()},
                      wrapped=WRAPPED, ready_after_s=pc() - t_start)
        open(os.path.join(a.dir, f"ready_{a.tag}"), "w").write("1")
        go = os.path.join(a.dir, f"go_{a.tag}")
        while not os.path.exists(go):
            if pc() - t_start > a.wait:
                return
            time.sleep(0.05)
        busy = open(go).read().strip()
        order = list(range(len(states))) + ([0] if len(states) > 1 else [])
        for j, i in enumerate(order):
            s = states[i]
            rec = {}
            try:
                measure(s, rec)
            except Exception as e:
                rec["error"] = f"{type(e).__name__}: {str(e)[:400]}"
            rec.update(model=a.key, layers=a.layers, batch=s["b"], ctx=s["ctx"], kv_len=s["ctx"] + SLOTS, ok=s["ok"],
                       shape_index=i, measure_order=j, shapes_in_process=len(states), compile_s=s["compile_s"],
                       others_busy=busy, **counts)
            emit(a.out, rec)
    open(os.path.join(a.dir, f"done_{a.tag}"), "w").write("1")


if __name__ == "__main__":
    main()
