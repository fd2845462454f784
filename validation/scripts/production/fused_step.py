#!/usr/bin/env python3
"""One decode or prefill step of a dense Llama-family model (llama, qwen2, mistral: TinyLlama,
Llama-2/3, Qwen2/2.5, Mistral) built by hand from the production kernels the `fused` profile is
calibrated on (lib/src/step/fused_profile.cpp; docs/accuracy.md's fused table, "measured
through"), for `perfmodel validate --on-gpu --impl fused` (issue 10, item 5) and for the sweep of
validation/results/h200-fused-step. Random bf16 weights (no network, no transformers model).

Per layer, as a serving engine (vLLM) runs it and the fused profile prices it:
  add_rmsnorm   residual add + RMSNorm, one torch.compile'd (Inductor/Triton) kernel; the first
                layer adds a zero residual, so every layer runs the same kernel (the profile
                prices every norm with its residual add, lib/src/model/decoder.cpp)
  qkv_proj      one GEMM over the fused q|k|v weight (QKVParallelLinear), cuBLASLt via F.linear,
                with the bias in the epilogue where the model has one (Qwen2)
  rope_kv       rotary on q and k (NeoX halves, cos|sin table gathered by position) and the
                K/V write into the cache by slot (vLLM's reshape_and_cache), one compiled function
  attention     decode: F.scaled_dot_product_attention, FlashAttention backend, one query over a
                preallocated contiguous KV cache of ctx slots (as attention.py measures it);
                prefill: cuDNN fused SDPA, causal, over the ctx keys just written
  o_proj        GEMM
  add_rmsnorm   (post-attention)
  gate_up_proj  one GEMM over the fused gate|up weight (MergedColumnParallelLinear)
  silu_mul      SiLU(gate) * up, one compiled kernel
  down_proj     GEMM
then the final add_rmsnorm and the LM head (decode: every token; prefill: the last position of each
sequence, lib/include/perfmodel/layer_graph.hpp logits_rows). The KV cache holds ctx slots: decode
writes slot ctx-1 and attends over all ctx keys (perfmodel --ctx ctx prices exactly that).

Method (validation/README.md, /work/.library/device/METHOD.md): layer 0 is checked against an fp32
reference on fresh inputs first (output, residual, and the K/V written to the cache); the whole
step is captured in ONE CUDA graph; graph replay time = CUDA events around one replay, median over
repeats; wall = host clock around replay + synchronize; kernel sum, count and the most expensive
kernels from torch.profiler over replays (CUPTI reports the kernels inside a graph).

    python3 fused_step.py --model KEY --phase decode|prefill --batch B --ctx N     (one point)
    python3 fused_step.py --sweep --models a,b --batches 1,8 --ctxs 512,2048 --prefill-ctxs 512
        --out DIR --time-limit S                                                   (results.jsonl)
The last stdout line of a one-point run is the result line perfmodel reads:
    profile_step ok=1 wall_s=... kernel_s=... device_s=... kernels=...
"""
import argparse
import json
import os
import statistics
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

DECODE_BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}
DECODE_BACKEND = ["cudnn"]  # set by --decode-backend

import harness  # noqa: E402
from fused_categories import fused_category  # noqa: E402
import hf_decode  # noqa: E402

BF16 = torch.bfloat16
TOL = 2e-2  # harness.run_case's bf16 tolerance: rel <= TOL and max/rms <= 10 TOL


# --- the fused kernels (torch.compile'd, Inductor's Triton kernels stand for vLLM's) -----------

def _add_rmsnorm(x, residual, w, eps: float):
    r = x + residual  # the new residual stream, stored in bf16 as vLLM's fused_add_rms_norm does
    return F.rms_norm(r, (r.shape[-1],), w, eps), r


def _rope_kv(qkv, cos_sin, pos, slots, k_cache, v_cache, heads: int, kv_heads: int, head_dim: int):
    t, half = qkv.shape[0], head_dim // 2
    q, k, v = qkv.split([heads * head_dim, kv_heads * head_dim, kv_heads * head_dim], dim=-1)
    cs = cos_sin[pos]
    cos, sin = cs[:, None, :half], cs[:, None, half:]

    def rot(x):  # NeoX-style rotary (Llama, Qwen2, Mistral), in fp32
        x = x.float()
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(qkv.dtype)
    k_cache[slots] = rot(k.reshape(t, kv_heads, head_dim))
    v_cache[slots] = v.reshape(t, kv_heads, head_dim)
    return rot(q.reshape(t, heads, head_dim))


def _silu_mul(gu):
    g, u = gu.chunk(2, dim=-1)
    return F.silu(g) * u


class Kernels:
    """The compiled functions, fresh per model (torch._dynamo.reset() between models, so that
    automatic dynamic shapes make only the token and cache dimensions dynamic, not the widths)."""

    def __init__(self):
        torch._dynamo.reset()
        for name in ("cache_size_limit", "recompile_limit"):
            if hasattr(torch._dynamo.config, name):
                setattr(torch._dynamo.config, name, 64)
        self.add_rmsnorm = torch.compile(_add_rmsnorm, fullgraph=True)
        self.rope_kv = torch.compile(_rope_kv, fullgraph=True)
        self.silu_mul = torch.compile(_silu_mul, fullgraph=True)


# --- the model ---------------------------------------------------------------------------------

class Spec:
    def __init__(self, key, layers=0):
        cfg = hf_decode.hf_config(key)
        if cfg.model_type not in ("llama", "qwen2", "mistral"):
            raise SystemExit(f"fused_step.py: --model {key}: only dense Llama-family models (llama, qwen2, mistral)"
                             f" are built here, not '{cfg.model_type}'")
        self.key = key
        self.hidden, self.inter = cfg.hidden_size, cfg.intermediate_size
        self.heads, self.kv_heads = cfg.num_attention_heads, cfg.num_key_value_heads
        self.head_dim = getattr(cfg, "head_dim", None) or self.hidden // self.heads
        self.vocab = cfg.vocab_size
        self.layers = layers or cfg.num_hidden_layers
        self.eps = float(getattr(cfg, "rms_norm_eps", 1e-6))
        self.qkv_bias = cfg.model_type == "qwen2" or bool(getattr(cfg, "attention_bias", False))
        self.mlp_bias = bool(getattr(cfg, "mlp_bias", False))
        self.qkv_out = (self.heads + 2 * self.kv_heads) * self.head_dim


def _mat(out, inn):
    """Unit-variance outputs for unit-variance inputs, so the attention scores are O(1)."""
    return torch.randn(out, inn, device="cuda", dtype=BF16) * inn ** -0.5


def _vec(n, scale=0.1, base=0.0):
    return base + scale * torch.randn(n, device="cuda", dtype=BF16)


class Weights:
    def __init__(self, s):
        torch.manual_seed(0)
        self.layers = []
        for _ in range(s.layers):
            self.layers.append(dict(
                ln1=_vec(s.hidden, base=1.0), wqkv=_mat(s.qkv_out, s.hidden),
                bqkv=_vec(s.qkv_out) if s.qkv_bias else None, wo=_mat(s.hidden, s.heads * s.head_dim),
                ln2=_vec(s.hidden, base=1.0), wgu=_mat(2 * s.inter, s.hidden),
                bgu=_vec(2 * s.inter) if s.mlp_bias else None, wd=_mat(s.hidden, s.inter),
                bd=_vec(s.hidden) if s.mlp_bias else None))
        self.embed = torch.randn(s.vocab, s.hidden, device="cuda", dtype=BF16)
        self.ln_f = _vec(s.hidden, base=1.0)
        self.lm = _mat(s.vocab, s.hidden)


def _cos_sin(positions, head_dim, theta=10000.0):
    inv = 1.0 / theta ** (torch.arange(0, head_dim, 2, device="cuda", dtype=torch.float32) / head_dim)
    f = torch.arange(positions, device="cuda", dtype=torch.float32)[:, None] * inv[None, :]
    return torch.cat([f.cos(), f.sin()], dim=-1)  # [positions, head_dim]: cos | sin


class Step:
    """Static buffers of one (phase, batch, ctx) point and its forward pass."""

    def __init__(self, s, w, k, phase, batch, ctx):
        self.s, self.w, self.k, self.phase, self.b, self.ctx = s, w, k, phase, batch, ctx
        self.q_len = 1 if phase == "decode" else ctx
        self.t = batch * self.q_len
        dev = "cuda"
        self.ids = torch.randint(0, s.vocab, (self.t,), device=dev)
        if phase == "decode":
            self.pos = torch.full((batch,), ctx - 1, device=dev, dtype=torch.long)
            self.slots = torch.arange(batch, device=dev) * ctx + ctx - 1
        else:
            self.pos = torch.arange(ctx, device=dev).repeat(batch)
            self.slots = torch.arange(batch * ctx, device=dev)
        self.cos_sin = _cos_sin(ctx, s.head_dim)
        # Per layer a K and a V cache of [batch*ctx, kv_heads, head_dim], random (never time on
        # zeros), each its own allocation: the compiled rope_kv mutates them, and views of one base
        # would be aliased graph inputs, which AOTAutograd handles through a synthetic base.
        # The attention's view of a layer is [batch, kv_heads, ctx, head_dim], strided as HF lays it.
        shape = (batch * ctx, s.kv_heads, s.head_dim)
        self.k_cache = [torch.randn(shape, device=dev, dtype=BF16) for _ in range(s.layers)]
        self.v_cache = [torch.randn(shape, device=dev, dtype=BF16) for _ in range(s.layers)]
        self.res0 = torch.zeros(self.t, s.hidden, device=dev, dtype=BF16)
        # Decode: cuDNN's SDPA by default, the GQA group packed into its 16-row query tile and the
        # KV streamed once per KV head, as production decode kernels run it (FlashAttention-3's
        # pack_gqa, FlashInfer, TensorRT-LLM's XQA); --decode-backend flash measures PyTorch's
        # FlashAttention-2 instead (what validation/results/h200-fused-step ran).
        self.backend = DECODE_BACKENDS[DECODE_BACKEND[0]] if phase == "decode" else SDPBackend.CUDNN_ATTENTION

    def kv(self, i):
        return self.k_cache[i], self.v_cache[i]

    def attention(self, q, i):
        s = self.s
        kc, vc = self.kv(i)
        q = q.view(self.b, self.q_len, s.heads, s.head_dim).transpose(1, 2)
        kk = kc.view(self.b, self.ctx, s.kv_heads, s.head_dim).transpose(1, 2)
        vv = vc.view(self.b, self.ctx, s.kv_heads, s.head_dim).transpose(1, 2)
        with sdpa_kernel([self.backend]):
            o = F.scaled_dot_product_attention(q, kk, vv, is_causal=self.phase == "prefill",
                                               enable_gqa=s.kv_heads != s.heads)
        return o.transpose(1, 2).reshape(self.t, s.heads * s.head_dim)

    def layer(self, i, x, res):
        s, L, k = self.s, self.w.layers[i], self.k
        h, res = k.add_rmsnorm(x, res, L["ln1"], s.eps)
        qkv = F.linear(h, L["wqkv"], L["bqkv"])
        kc, vc = self.kv(i)
        q = k.rope_kv(qkv, self.cos_sin, self.pos, self.slots, kc, vc, s.heads, s.kv_heads, s.head_dim)
        x = F.linear(self.attention(q, i), L["wo"])
        h, res = k.add_rmsnorm(x, res, L["ln2"], s.eps)
        x = F.linear(k.silu_mul(F.linear(h, L["wgu"], L["bgu"])), L["wd"], L["bd"])
        return x, res

    def forward(self):
        x, res = F.embedding(self.ids, self.w.embed), self.res0
        for i in range(self.s.layers):
            x, res = self.layer(i, x, res)
        h, _ = self.k.add_rmsnorm(x, res, self.w.ln_f, self.s.eps)
        if self.phase == "prefill":  # logits of the last position of each sequence only
            h = h.view(self.b, self.ctx, self.s.hidden)[:, -1]
        return F.linear(h, self.w.lm)


# --- correctness: layer 0 against fp32 -----------------------------------------------------------

def _ref_layer(st, x, res, cache_k, cache_v):
    """fp32 layer 0 on the same inputs; cache_k/v: fp32 copies of layer 0's cache before the step."""
    s, L = st.s, {k: (v.float() if v is not None else None) for k, v in st.w.layers[0].items()}

    def rms(r, w):
        return r * torch.rsqrt(r.pow(2).mean(-1, keepdim=True) + s.eps) * w
    r = x.float() + res.float()
    qkv = F.linear(rms(r, L["ln1"]), L["wqkv"], L["bqkv"])
    hd, half = s.head_dim, s.head_dim // 2
    q, k, v = qkv.split([s.heads * hd, s.kv_heads * hd, s.kv_heads * hd], dim=-1)
    cs = st.cos_sin[st.pos]
    cos, sin = cs[:, None, :half], cs[:, None, half:]

    def rot(t):
        return torch.cat([t[..., :half] * cos - t[..., half:] * sin, t[..., half:] * cos + t[..., :half] * sin], -1)
    q, k, v = rot(q.reshape(st.t, s.heads, hd)), rot(k.reshape(st.t, s.kv_heads, hd)), v.reshape(st.t, s.kv_heads, hd)
    cache_k[st.slots], cache_v[st.slots] = k, v
    g = s.heads // s.kv_heads
    kk = cache_k.view(st.b, st.ctx, s.kv_heads, hd).transpose(1, 2).repeat_interleave(g, dim=1)
    vv = cache_v.view(st.b, st.ctx, s.kv_heads, hd).transpose(1, 2).repeat_interleave(g, dim=1)
    qq = q.view(st.b, st.q_len, s.heads, hd).transpose(1, 2)
    sc = qq @ kk.transpose(-1, -2) / hd ** 0.5
    if st.phase == "prefill":
        sc = sc.masked_fill(torch.ones(st.ctx, st.ctx, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    o = (torch.softmax(sc, -1) @ vv).transpose(1, 2).reshape(st.t, s.heads * hd)
    r2 = F.linear(o, L["wo"]) + r
    gu = F.linear(rms(r2, L["ln2"]), L["wgu"], L["bgu"])
    gate, up = gu.chunk(2, -1)
    return F.linear(F.silu(gate) * up, L["wd"], L["bd"]), r2, k, v


def check_layer(st):
    """(correct, details): layer 0 of the production path against fp32 on fresh random inputs."""
    x = torch.randn(st.t, st.s.hidden, device="cuda", dtype=BF16)
    res = torch.randn(st.t, st.s.hidden, device="cuda", dtype=BF16)
    kc, vc = st.kv(0)
    ref_k, ref_v = kc.float(), vc.float()
    kc[st.slots] = float("nan")  # poisoned: the step must write every new slot
    vc[st.slots] = float("nan")
    with torch.no_grad():
        out, r2 = st.layer(0, x, res)
        torch.cuda.synchronize()
        ref_out, ref_r2, rk, rv = _ref_layer(st, x, res, ref_k, ref_v)
    errs = {"out": harness.rel_error(out, ref_out), "residual": harness.rel_error(r2, ref_r2),
            "k_written": harness.rel_error(kc[st.slots], rk), "v_written": harness.rel_error(vc[st.slots], rv)}
    ok = all(rel <= TOL and mx <= 10 * TOL for rel, mx in errs.values())
    return ok, {k: [round(a, 6), round(b, 6)] for k, (a, b) in errs.items()}


# --- timing --------------------------------------------------------------------------------------

def measure(st, max_seconds=0.5, profile_steps=1):
    """Captures the step in one CUDA graph and times its replays (see the module docstring)."""
    with torch.no_grad():
        for _ in range(2):  # compiles for these shapes, cuBLAS handles, SDPA's backend choice
            st.forward()
        torch.cuda.synchronize()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            st.forward()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            logits = st.forward()
        graph.replay()
        torch.cuda.synchronize()
    finite = bool(torch.isfinite(logits.float()).all())
    rows = st.b
    finite = finite and tuple(logits.shape) == (rows, st.s.vocab)
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    dev, wall, t0 = [], [], time.perf_counter()
    while len(dev) < 10 or (len(dev) < 50 and time.perf_counter() - t0 < max_seconds):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        h0 = time.perf_counter()
        a.record()
        graph.replay()
        b.record()
        b.synchronize()
        wall.append(time.perf_counter() - h0)
        dev.append(a.elapsed_time(b) * 1e-3)
    kernel_s, _, count, top = hf_decode._kernel_profile(graph.replay, profile_steps)
    cats = {}
    for name, t in top.items():
        c = fused_category(name)
        cats[c] = cats.get(c, 0.0) + t
    q = statistics.quantiles(dev, n=10)
    r = dict(ok=finite, device_s=statistics.median(dev), device_p10_s=q[0], device_p90_s=q[-1], samples=len(dev),
             wall_s=statistics.median(wall), kernel_s=kernel_s, kernels=count, kernel_by_category_s=cats,
             top_kernels_s=top)
    del graph, logits
    return r


# --- entry points --------------------------------------------------------------------------------

def measure_point(key, phase, batch, ctx, layers=0, model=None, check=True):
    """One point; `model` = (spec, weights, kernels) to reuse across points of one model; `check`:
    layer 0 against fp32 first (a sweep checks each model's first point of each phase)."""
    s, w, k = model or (Spec(key, layers), None, None)
    if w is None:
        w, k = Weights(s), Kernels()
    st = Step(s, w, k, phase, batch, ctx)
    correct, errs = check_layer(st) if check else (True, None)
    r = measure(st)
    r.update(correct=correct, check_rel_errors=errs, model=key, phase=phase, batch=batch, ctx=ctx,
             layers=s.layers, tokens=st.t, attention_backend=DECODE_BACKEND[0] if phase == "decode" else "cudnn")
    r["ok"] = bool(r["ok"] and correct)
    del st
    torch.cuda.empty_cache()
    return r


def result_line(r):
    return (f"profile_step ok={int(r['ok'])} wall_s={r['wall_s']} kernel_s={r['kernel_s']} "
            f"device_s={r['device_s']} kernels={r['kernels']}")


def sweep(a):
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "results.jsonl")
    harness.init()
    meta = dict(kind="meta", device=harness.device_meta(), torch=torch.__version__, argv=sys.argv,
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    t0 = time.perf_counter()
    with open(path, "a") as f:
        f.write(json.dumps(meta) + "\n")
        f.flush()
        for key in a.models.split(","):
            points = [("decode", b, c) for c in map(int, a.ctxs.split(",")) for b in map(int, a.batches.split(","))]
            points += [("prefill", 1, c) for c in map(int, a.prefill_ctxs.split(",")) if c > 0]
            model, checked = None, {}
            for phase, b, c in points:
                el = time.perf_counter() - t0
                if el > a.time_limit:
                    f.write(json.dumps(dict(kind="skipped", model=key, phase=phase, batch=b, ctx=c,
                                            reason=f"time limit {a.time_limit} s at {el:.0f} s")) + "\n")
                    continue
                try:
                    if model is None:
                        s = Spec(key, a.layers)
                        tw = time.perf_counter()
                        model = (s, Weights(s), Kernels())
                        print(f"{key}: weights in {time.perf_counter() - tw:.1f} s", flush=True)
                    tp = time.perf_counter()
                    r = measure_point(key, phase, b, c, model=model, check=phase not in checked)
                    if r["check_rel_errors"] is None:  # checked at this model's first point of the phase
                        r["correct"] = checked[phase]
                        r["ok"] = bool(r["ok"] and r["correct"])
                    checked[phase] = r["correct"]
                    r.update(kind="point", seconds=time.perf_counter() - tp)
                    print(f"{key} {phase} b{b} ctx{c}: graph {r['device_s'] * 1e3:.3f} ms, kernels "
                          f"{r['kernel_s'] * 1e3:.3f} ms ({r['kernels']:.0f}), wall {r['wall_s'] * 1e3:.3f} ms, "
                          f"ok {r['ok']} check {r['check_rel_errors']}, {r['seconds']:.1f} s, "
                          + ", ".join(f"{k} {v * 1e3:.2f}" for k, v in sorted(r["kernel_by_category_s"].items())),
                          flush=True)
                except Exception as e:  # recorded, and the sweep goes on
                    r = dict(kind="error", model=key, phase=phase, batch=b, ctx=c,
                             error=f"{type(e).__name__}: {str(e)[:400]}")
                    print(f"{key} {phase} b{b} ctx{c}: ERROR {r['error']}", flush=True)
                    traceback.print_exc()
                    torch.cuda.empty_cache()
                f.write(json.dumps(r) + "\n")
                f.flush()
            del model
            torch.cuda.empty_cache()
    print(f"sweep done in {time.perf_counter() - t0:.0f} s: {path}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model")
    ap.add_argument("--phase", choices=["decode", "prefill"], default="decode")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--ctx", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=0, help="cut the model to this many layers (0: all)")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--models", default="tinyllama-1.1b,llama3-8b,qwen2.5-7b,mistral-7b")
    ap.add_argument("--batches", default="1,8,32,64")
    ap.add_argument("--ctxs", default="512,2048,4096")
    ap.add_argument("--prefill-ctxs", default="512,2048,4096")
    ap.add_argument("--out", default="fused-step")
    ap.add_argument("--time-limit", type=float, default=240.0, help="sweep: start no point after this many seconds")
    ap.add_argument("--decode-backend", choices=sorted(DECODE_BACKENDS), default="cudnn",
                    help="decode attention's SDPA backend (default cudnn: the GQA-packed production kernel)")
    a = ap.parse_args(argv)
    DECODE_BACKEND[0] = a.decode_backend
    torch.cuda.set_device(0)
    if a.sweep:
        return sweep(a)
    if not a.model:
        ap.error("--model is required (or --sweep)")
    if a.batch < 1 or a.ctx < 1:
        ap.error("--batch and --ctx must be positive")
    r = measure_point(a.model, a.phase, a.batch, a.ctx, a.layers)
    print(json.dumps(r), file=sys.stderr)
    print(result_line(r), flush=True)


if __name__ == "__main__":
    main()
