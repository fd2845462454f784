"""Hugging Face transformers under torch.compile (Inductor, mode="reduce-overhead": CUDA graphs),
the `compiled` profile's truth (issue 10, item 2). Random weights, bf16, attn_implementation="sdpa",
transformers' StaticCache (what HF's compile recipe uses: fixed shapes, so one graph per shape).

Per (model, batch, ctx): decode fills a StaticCache of ctx + STEPS slots with ctx tokens (eager),
then every compiled call decodes the next position, as generation does; a static cache always
attends over all its slots (the rest masked), so the attention's KV length is ctx + STEPS
(`kv_len` in the record).
- wall: median of 20 synchronized calls after the compile and 3 warm-ups (CUDA graph replay plus
  the Python and guard checks around it), bookkeeping between calls outside the timing;
- device: CUDA events around one call, median of 20 (one graph replay: the kernels and the gaps
  between them);
- kernel time by category, kernels per step and the 25 most expensive kernel names
  (torch.profiler, 3 steps; kernels inside a CUDA graph replay are reported by CUPTI).
Prefill: a (1, ctx) forward into an empty StaticCache of ctx, logits of the last position.
The models are cut to `layers` decoder layers (compile time grows with depth; the per-layer kernels
are the same): perfmodel predicts the same cut model (a models/*.yaml copy with num_hidden_layers
set, compare_compiled.py).
"""
import statistics
import time

import torch

import hf_decode


def _static_cache(cfg, b, max_len):
    from transformers import StaticCache
    tries = (dict(config=cfg, max_cache_len=max_len),
             dict(config=cfg, max_batch_size=b, max_cache_len=max_len, device="cuda", dtype=torch.bfloat16))
    err = None
    for kw in tries:
        try:
            return StaticCache(**kw)
        except TypeError as e:
            err = e
    raise err


def _build(key, layers):
    from transformers import AutoModelForCausalLM
    cfg = hf_decode.hf_config(key)
    cfg.num_hidden_layers = layers
    torch.manual_seed(0)
    with torch.device("cuda"):
        m = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16, attn_implementation="sdpa")
    return m.eval(), cfg


def decode_loop(m, cfg, fwd, b, ctx, steps):
    """(cache, step, between) of a generation loop: a StaticCache of ctx + steps slots filled eagerly
    with ctx tokens; step() decodes the next position with the compiled forward `fwd`, between()
    moves to the next position (outside any timing). Call under torch.no_grad()."""
    cache = _static_cache(cfg, b, ctx + steps)
    ids = torch.randint(0, cfg.vocab_size, (b, ctx), device="cuda")
    m(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1,
      cache_position=torch.arange(ctx, device="cuda"))
    nxt = torch.randint(0, cfg.vocab_size, (b, 1), device="cuda")
    positions = [torch.tensor([ctx + i], device="cuda") for i in range(steps)]
    st = {"i": 0}

    def step():
        pos = positions[min(st["i"], steps - 1)]
        torch.compiler.cudagraph_mark_step_begin()
        return fwd(input_ids=nxt, past_key_values=cache, use_cache=True, logits_to_keep=1,
                   cache_position=pos, position_ids=pos.unsqueeze(0).expand(b, 1))

    def between():
        st["i"] += 1
    return cache, step, between


def _profile(step, n, between):
    """hf_decode._kernel_profile over n calls, each in its own profiler session so that `between`
    (cache bookkeeping outside the step) is not counted."""
    total, cats, count, names = 0.0, {}, 0.0, {}
    for _ in range(n):
        kt, c, k, top = hf_decode._kernel_profile(step, 1)
        between()
        total += kt / n
        count += k / n
        for d, src in ((cats, c), (names, top)):
            for key, v in src.items():
                d[key] = d.get(key, 0) + v / n
    return total, cats, count, dict(sorted(names.items(), key=lambda kv: -kv[1])[:25])


def _time(fn, n, warm, between):
    """(median wall, q1, q3, median device by CUDA events) over n synchronized calls."""
    for _ in range(warm):
        fn()
        torch.cuda.synchronize()
        between()
    wall, dev = [], []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        wall.append(time.perf_counter() - t0)
        dev.append(a.elapsed_time(b) * 1e-3)
        between()
    q = statistics.quantiles(wall, n=4)
    return statistics.median(wall), q[0], q[2], statistics.median(dev)


STEPS = 40  # decode calls per point: compile, warm-ups, timed, profiled


def measure_point(m, cfg, fwd, phase, b, ctx, layers, key, log):
    """Decode: ctx tokens in a StaticCache of ctx + STEPS slots, each call decodes the next
    position (a real generation loop; attention runs over all ctx + STEPS slots with a mask).
    Prefill: (b, ctx) tokens into a StaticCache of ctx, reset between calls (outside timing)."""
    vocab = cfg.vocab_size
    max_len = ctx + STEPS if phase == "decode" else ctx
    t_compile = time.perf_counter()
    with torch.no_grad():
        if phase == "decode":
            cache, step, between = decode_loop(m, cfg, fwd, b, ctx, STEPS)
        else:
            cache = _static_cache(cfg, b, max_len)
            ids = torch.randint(0, vocab, (b, ctx), device="cuda")
            pos = torch.arange(ctx, device="cuda")

            def step():
                torch.compiler.cudagraph_mark_step_begin()
                return fwd(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1,
                           cache_position=pos, position_ids=pos.unsqueeze(0).expand(b, ctx))

            def between():
                cache.reset()

        out = step()  # compiles
        logits = out.logits
        ok = bool(torch.isfinite(logits.float()).all()) and logits.shape[:2] == (b, 1)
        del out, logits
        between()
        for _ in range(2):  # reduce-overhead records its CUDA graph on a later call
            step()
            torch.cuda.synchronize()
            between()
        t_compile = time.perf_counter() - t_compile
        med, q1, q3, dev = _time(step, 20, 3, between)
        kt, cats, kcount, top = _profile(step, 3, between)
    kv_len = max_len
    r = dict(model=key, layers=layers, phase=phase, batch=b, ctx=ctx, kv_len=kv_len, ok=ok, impl="torch.compile",
             mode="reduce-overhead", cache="StaticCache", wall_s=med, wall_q1_s=q1, wall_q3_s=q3, device_s=dev,
             kernel_s=kt, kernels_per_step=kcount, kernel_by_category_s=cats, top_kernels_s=top,
             compile_and_warmup_s=t_compile)
    log(f"compiled {key} L{layers} {phase} b{b} ctx{ctx} (kv {kv_len}): wall {med * 1e3:.3f} ms, graph {dev * 1e3:.3f} ms, "
        f"kernels {kt * 1e3:.3f} ms ({kcount:.0f}), {', '.join(f'{c} {v * 1e3:.2f}' for c, v in cats.items())} "
        f"[compile {t_compile:.1f} s]")
    del cache
    torch.cuda.empty_cache()
    return r


def measure_model(key, points, layers, log, deadline):
    """points: [(phase, batch, ctx)]; stops before a point when time.perf_counter() > deadline."""
    m, cfg = _build(key, layers)
    fullgraph = True
    fwd = torch.compile(m.forward, mode="reduce-overhead", fullgraph=True, dynamic=False)
    out = []
    for phase, b, ctx in points:
        if time.perf_counter() > deadline:
            log(f"compiled {key}: budget spent before {phase} b{b} ctx{ctx}")
            break
        try:
            try:
                r = measure_point(m, cfg, fwd, phase, b, ctx, layers, key, log)
            except Exception as e:
                if not fullgraph:
                    raise
                # a graph break: compile with breaks allowed (recorded), as a user would next
                log(f"compiled {key}: fullgraph failed ({type(e).__name__}: {str(e)[:300]}); fullgraph=False")
                fullgraph = False
                torch._dynamo.reset()
                fwd = torch.compile(m.forward, mode="reduce-overhead", fullgraph=False, dynamic=False)
                r = measure_point(m, cfg, fwd, phase, b, ctx, layers, key, log)
            r["fullgraph"] = fullgraph
            out.append(r)
        except Exception as e:  # one failed shape must not lose the others
            log(f"compiled {key} {phase} b{b} ctx{ctx} raised: {type(e).__name__}: {str(e)[:400]}")
            out.append(dict(model=key, layers=layers, phase=phase, batch=b, ctx=ctx, ok=False,
                            impl="torch.compile", error=f"{type(e).__name__}: {str(e)[:400]}"))
    del m, fwd
    torch._dynamo.reset()
    torch.cuda.empty_cache()
    return out


def measure_static_prefill(m, cfg, b, ctx, n=5):
    """The prompt's forward as generate() runs it with a StaticCache: uncompiled (transformers 5.17
    generation/utils.py: `_prefill` calls the compiled forward only for chunked prefill; the
    compiled call serves the steps after it). (ok, wall_s, kernel_s, kernels) over a cache of
    ctx + 64 slots, reset between calls outside timing; the same measurement as host_probe.py's
    `prefill_static_eager` (validation/results/h200-host-probe)."""
    cache = _static_cache(cfg, b, ctx + 64)
    ids = torch.randint(0, cfg.vocab_size, (b, ctx), device="cuda")
    pos = torch.arange(ctx, device="cuda")
    with torch.no_grad():
        def step():
            return m(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1,
                     cache_position=pos, position_ids=pos.unsqueeze(0).expand(b, ctx))
        logits = step().logits
        ok = bool(torch.isfinite(logits.float()).all()) and logits.shape[:2] == (b, 1)
        cache.reset()
        wall, _, _ = hf_decode._wall(step, n, 2, cache.reset)
        kernel, _, kernels, _ = hf_decode._kernel_profile(step, 2, cache.reset)
    return ok, wall, kernel, kernels
