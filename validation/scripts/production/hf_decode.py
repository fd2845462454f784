"""Hugging Face transformers eager decode and prefill (random weights, from_config, bf16, sdpa),
configs written from the catalogue YAML in models/ (no network). The cache is transformers'
default DynamicCache (what generate() uses unless told otherwise): each step concatenates the new
K/V onto the cache, and the cache is cropped back to `ctx` between timed steps (outside timing).

Per (model, batch, ctx): wall time of one decode step (median of 20 synchronized steps after 3
warm-ups), GPU kernel time per step from torch.profiler (5 steps) and that kernel time by
category; per model one prefill (batch 1): wall time and kernel time.
"""
import re
import statistics
import time

import torch
import yaml

CATEGORIES = [  # first match wins; kernel names of cuBLAS/cuBLASLt, SDPA backends and ATen.
    # Attention first: FlashAttention's and CUTLASS FMHA's template names contain "cutlass::"
    # (the run of record, h200-production/hf.json, had gemm first and so counted prefill
    # attention as gemm; see that folder's README).
    ("attention", re.compile(r"flash|fmha|attention|sdpa|cudnn", re.I)),
    ("gemm", re.compile(r"gemm|gemv|nvjet|cutlass|xmma|sm90_|splitKreduce|cublas", re.I)),
    ("norm", re.compile(r"norm|reduce_kernel", re.I)),
    ("copy_cat", re.compile(r"cat|copy|memcpy|memset|index", re.I)),
    ("elementwise", re.compile(r"elementwise|vectorized|unrolled|silu|gelu|tanh", re.I)),
]


def category(name):
    for cat, rx in CATEGORIES:
        if rx.search(name):
            return cat
    return "other"


def hf_config(key, root="models"):
    """A transformers config from models/<key>.yaml (the fields the catalogue holds)."""
    y = yaml.safe_load(open(f"{root}/{key}.yaml"))
    arch = y["architecture"]
    if arch == "gpt2":
        from transformers import GPT2Config
        return GPT2Config(n_embd=y["hidden_size"], n_layer=y["num_hidden_layers"], n_head=y["num_attention_heads"],
                          n_inner=y["intermediate_size"], vocab_size=y["vocab_size"],
                          n_positions=y["max_position_embeddings"], activation_function=y["hidden_act"],
                          tie_word_embeddings=y["tie_word_embeddings"])
    common = dict(hidden_size=y["hidden_size"], intermediate_size=y["intermediate_size"],
                  num_hidden_layers=y["num_hidden_layers"], num_attention_heads=y["num_attention_heads"],
                  num_key_value_heads=y["num_key_value_heads"], head_dim=y["head_dim"], vocab_size=y["vocab_size"],
                  max_position_embeddings=y["max_position_embeddings"], hidden_act=y["hidden_act"],
                  tie_word_embeddings=y["tie_word_embeddings"])
    if arch == "qwen2":
        from transformers import Qwen2Config
        return Qwen2Config(**common)
    if arch == "gemma2":  # the schema's fields, plus Gemma-2's own from its config.json (models/gemma2-9b.yaml's header)
        from transformers import Gemma2Config
        g = dict(common)
        g["hidden_activation"] = g.pop("hidden_act")
        return Gemma2Config(query_pre_attn_scalar=y["head_dim"], sliding_window=y["sliding_window"],
                            attn_logit_softcapping=50.0, final_logit_softcapping=30.0, **g)
    if arch == "mistral" and y.get("sliding_window"):  # Mistral-7B-v0.1's window (later Mistrals have none: Llama's shapes)
        from transformers import MistralConfig
        return MistralConfig(sliding_window=y["sliding_window"], **common)
    if arch == "qwen3":  # q_norm / k_norm over each head are part of the class (modeling_qwen3.py)
        from transformers import Qwen3Config
        return Qwen3Config(attention_bias=y["attention_bias"], **common)
    from transformers import LlamaConfig
    return LlamaConfig(attention_bias=y["attention_bias"], mlp_bias=y["mlp_bias"], **common)


def build(key):
    from transformers import AutoModelForCausalLM
    cfg = hf_config(key)
    torch.manual_seed(0)
    with torch.device("cuda"):
        try:
            m = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16, attn_implementation="sdpa")
        except TypeError:
            m = AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.bfloat16, attn_implementation="sdpa")
    return m.eval(), cfg


def build_cut(cfg, layers):
    """`cfg`'s model cut to `layers` decoder layers (random bf16 weights, SDPA), for the host probes."""
    if hasattr(cfg, "n_layer"):
        cfg.n_layer = layers
    else:
        cfg.num_hidden_layers = layers
    from transformers import AutoModelForCausalLM
    torch.manual_seed(0)
    with torch.device("cuda"):
        m = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16, attn_implementation="sdpa").eval()
    return m, cfg


def _kernel_profile(fn, n, between=None):
    """Total GPU kernel time per call and by category (torch.profiler, n calls). Each call is
    profiled in its own session and `between` runs outside it: cache bookkeeping that launches
    kernels (a contiguous copy) is not counted."""
    from torch.profiler import ProfilerActivity, profile
    total, cats, count, names = 0.0, {}, 0, {}
    for _ in range(n):
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
            fn()
            torch.cuda.synchronize()
        if between:
            between()
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                us = e.time_range.elapsed_us()
                total += us
                count += 1
                c = category(e.name)
                cats[c] = cats.get(c, 0) + us
                names[e.name[:160]] = names.get(e.name[:160], 0) + us
    top = sorted(names.items(), key=lambda kv: -kv[1])[:25]  # kept so a run can be re-categorised later
    return (total * 1e-6 / n, {c: v * 1e-6 / n for c, v in sorted(cats.items())}, count / n,
            {k: v * 1e-6 / n for k, v in top})


def _wall(fn, n, warm, between=None):
    for _ in range(warm):
        fn()
        torch.cuda.synchronize()
        if between:
            between()
            torch.cuda.synchronize()
    t = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        t.append(time.perf_counter() - t0)
        if between:
            between()
            # The contiguous cache's copies are asynchronous: without this their GPU time ran
            # into the next timed step (h200-moe-contiguous/README.md, "After moe2").
            torch.cuda.synchronize()
    q = statistics.quantiles(t, n=4)
    return statistics.median(t), q[0], q[2]


def _forward(m, ids, cache):
    """A forward that keeps only the last position's logits, as generate() asks (logits_to_keep)."""
    try:
        return m(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1)
    except TypeError:  # a model class without the argument computes every position's logits
        return m(input_ids=ids, past_key_values=cache, use_cache=True)


def _contiguous(cache):
    """The cache's keys/values made contiguous, as generate()'s torch.cat leaves them."""
    for layer in cache.layers:
        layer.keys = layer.keys.contiguous()
        layer.values = layer.values.contiguous()


def _decode_setup(m, cfg, b, ctx, contiguous=False):
    """A cache holding ctx tokens and a decode step at position ctx; (step, between, cache, ok).
    crop() leaves views over ctx + 1 positions, which makes the next step's cat copy a strided
    source (validation/results/h200-moe item 1); `contiguous` copies them back between steps."""
    vocab = cfg.vocab_size
    ids = torch.randint(0, vocab, (b, ctx), device="cuda")
    nxt = torch.randint(0, vocab, (b, 1), device="cuda")
    cache = _forward(m, ids, None).past_key_values

    def step():
        return m(input_ids=nxt, past_key_values=cache, use_cache=True)

    # transformers' sliding-window layers cannot be cropped once past their window (Gemma-2 at ctx > 4096:
    # validation/results/h200-hfgemma): there each layer's state is kept and put back, as contiguous as
    # the prompt's forward left it (no kernel); every other cache is cropped as before.
    saved = [dict(layer.__dict__) for layer in cache.layers]
    window = getattr(cfg, "sliding_window", None) or 0
    sliding = window > 0 and ctx >= window and any("Sliding" in type(layer).__name__ for layer in cache.layers)

    def between():  # back to ctx tokens, outside timing (slicing: no kernel; contiguous: a copy)
        if sliding:
            for layer, state in zip(cache.layers, saved):
                layer.__dict__.clear()
                layer.__dict__.update(state)
            return
        cache.crop(ctx)
        if contiguous:
            _contiguous(cache)
    logits = step().logits
    ok = bool(torch.isfinite(logits.float()).all()) and logits.shape[:2] == (b, 1)
    between()
    return step, between, cache, ok


def measure_model(key, batches, ctxs, log, n=20):
    m, cfg = build(key)
    vocab = cfg.vocab_size
    out = []
    with torch.no_grad():
        for ctx in ctxs:
            for b in batches:
                step, between, cache, ok = _decode_setup(m, cfg, b, ctx)
                med, q1, q3 = _wall(step, n, 3, between)
                kt, cats, kcount, top = _kernel_profile(step, 5, between)
                r = dict(model=key, phase="decode", batch=b, ctx=ctx, ok=ok, wall_s=med, wall_q1_s=q1, wall_q3_s=q3,
                         kernel_s=kt, kernels_per_step=kcount, kernel_by_category_s=cats,
                         top_kernels_s=top, cache=type(cache).__name__)
                out.append(r)
                log(f"hf {key} decode {r['cache']} b{b} ctx{ctx}: wall {med * 1e3:.3f} ms, kernels {kt * 1e3:.3f} ms "
                    f"({kcount:.0f}), {', '.join(f'{c} {v * 1e3:.2f}' for c, v in cats.items())}")
                del step, between, cache
                torch.cuda.empty_cache()
        pctx = min(2048, cfg.max_position_embeddings if hasattr(cfg, "max_position_embeddings") else cfg.n_positions)
        ids = torch.randint(0, vocab, (1, pctx), device="cuda")

        def prefill():
            return _forward(m, ids, None)

        med, q1, q3 = _wall(prefill, 5, 2)
        kt, cats, kcount, top = _kernel_profile(prefill, 2)
        out.append(dict(model=key, phase="prefill", batch=1, ctx=pctx, ok=True, wall_s=med, wall_q1_s=q1, wall_q3_s=q3,
                        kernel_s=kt, kernels_per_step=kcount, kernel_by_category_s=cats, top_kernels_s=top))
        log(f"hf {key} prefill b1 {pctx}: wall {med * 1e3:.3f} ms, kernels {kt * 1e3:.3f} ms")
    del m
    torch.cuda.empty_cache()
    return out
