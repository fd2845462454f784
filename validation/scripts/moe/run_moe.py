#!/usr/bin/env python3
"""MoE and MLA models on the H200 (issue 11, validation): Hugging Face transformers eager decode
and prefill steps with random bf16 weights, and the MoE kernels in isolation.

    python3 validation/scripts/moe/run_moe.py OUT_DIR [--budget S] [--models k1,k2,...]

(a) Per model (configs from the catalogue YAML in models/, no network): decode steps at a few
    (batch, ctx) points and one prefill, timed as validation/scripts/production/hf_decode.py
    times them (wall: median of synchronized steps; device: torch.profiler kernel sums, by
    category and by kernel name). The experts run through transformers' default experts
    implementation (recorded); where that is not `grouped_mm`, two points are repeated with it.
(b) torch._grouped_mm at the rows per expert of decode batches (Qwen3-30B-A3B and
    DeepSeek-V2-Lite expert shapes, uniform random routing) and top-k routing (softmax + topk),
    checked against an fp32 reference, then timed by harness.time_case (CUDA graph, events).
Writes OUT_DIR/hf.json (meta, steps, kernel_cases) and OUT_DIR/run.log after every point, so a run
stopped at its budget keeps what it measured.
"""
import argparse
import datetime
import json
import os
import re
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402
import yaml  # noqa: E402

import harness  # noqa: E402
import hf_decode  # noqa: E402

# MoE-specific kernel categories first (then hf_decode's): names of ATen/CUTLASS kernels.
hf_decode.CATEGORIES[:0] = [
    ("grouped_gemm", re.compile(r"grouped|GroupProblemShape|ptr_array|_grouped_mm", re.I)),
    ("topk_sort", re.compile(r"topk|sort|radix|bitonic|histc|histogram|scan_|cumsum|gatherTopK", re.I)),
    ("softmax", re.compile(r"softmax", re.I)),
    ("scatter_index", re.compile(r"scatter|index_add|indexing_backward|index_put|nonzero|masked", re.I)),
]

POINTS = {  # (batch, ctx), most informative first, so a run cut short still spans the range
    "qwen3-30b-a3b": [(1, 512), (16, 2048), (64, 4096), (8, 1024), (1, 4096), (64, 512), (32, 2048)],
    "deepseek-v2-lite": [(1, 512), (16, 2048), (64, 2048), (8, 1024), (1, 4096), (64, 512), (32, 4096)],
    "mixtral-8x7b": [(1, 512), (16, 2048), (64, 1024)],
}


def hf_config(key):
    y = yaml.safe_load(open(f"models/{key}.yaml"))
    arch = y["architecture"]
    common = dict(hidden_size=y["hidden_size"], intermediate_size=y["intermediate_size"],
                  num_hidden_layers=y["num_hidden_layers"], num_attention_heads=y["num_attention_heads"],
                  num_key_value_heads=y["num_key_value_heads"], vocab_size=y["vocab_size"],
                  max_position_embeddings=y["max_position_embeddings"], hidden_act=y["hidden_act"],
                  tie_word_embeddings=y["tie_word_embeddings"], num_experts_per_tok=y["num_experts_per_tok"])
    if arch == "qwen3_moe":
        from transformers import Qwen3MoeConfig
        return Qwen3MoeConfig(head_dim=y["head_dim"], num_experts=y["n_routed_experts"],
                              moe_intermediate_size=y["moe_intermediate_size"],
                              decoder_sparse_step=y["decoder_sparse_step"], mlp_only_layers=[],
                              norm_topk_prob=y["norm_topk_prob"], attention_bias=y["attention_bias"], **common)
    if arch == "deepseek_v2":
        from transformers import DeepseekV2Config
        return DeepseekV2Config(moe_intermediate_size=y["moe_intermediate_size"], n_routed_experts=y["n_routed_experts"],
                                n_shared_experts=y["n_shared_experts"], first_k_dense_replace=y["first_k_dense_replace"],
                                kv_lora_rank=y["kv_lora_rank"], q_lora_rank=y["q_lora_rank"] or None,
                                qk_nope_head_dim=y["qk_nope_head_dim"], qk_rope_head_dim=y["qk_rope_head_dim"],
                                v_head_dim=y["v_head_dim"], n_group=y["n_group"], topk_group=y["topk_group"],
                                topk_method="greedy", norm_topk_prob=y["norm_topk_prob"], **common)
    if arch == "mixtral":
        from transformers import MixtralConfig
        return MixtralConfig(head_dim=y["head_dim"], num_local_experts=y["n_routed_experts"], **common)
    raise SystemExit(f"models/{key}.yaml: architecture '{arch}' is not handled here")


def build(key):
    from transformers import AutoModelForCausalLM
    cfg = hf_config(key)
    torch.manual_seed(0)
    with torch.device("cuda"):
        m = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16, attn_implementation="sdpa")
    return m.eval(), cfg


def experts_impl(m):
    return str(getattr(m.config, "_experts_implementation", None))


CONTIGUOUS = False  # --contiguous-cache


def decode_point(m, cfg, key, b, ctx, impl, n=10):
    step, between, cache, ok = hf_decode._decode_setup(m, cfg, b, ctx, CONTIGUOUS)
    med, q1, q3 = hf_decode._wall(step, n, 2, between)
    kt, cats, kcount, top = hf_decode._kernel_profile(step, 3, between)
    del step, between, cache
    torch.cuda.empty_cache()
    return dict(model=key, phase="decode", batch=b, ctx=ctx, ok=ok, experts_implementation=impl, wall_s=med,
                wall_q1_s=q1, wall_q3_s=q3, kernel_s=kt, kernels_per_step=kcount, kernel_by_category_s=cats,
                top_kernels_s=top, cache_layout="contiguous" if CONTIGUOUS else "cropped")


def prefill_point(m, cfg, key, b, ctx, impl):
    ids = torch.randint(0, cfg.vocab_size, (b, ctx), device="cuda")

    def prefill():
        return hf_decode._forward(m, ids, None)
    logits = prefill().logits
    ok = bool(torch.isfinite(logits.float()).all())
    med, q1, q3 = hf_decode._wall(prefill, 4, 1)
    kt, cats, kcount, top = hf_decode._kernel_profile(prefill, 2)
    return dict(model=key, phase="prefill", batch=b, ctx=ctx, ok=ok, experts_implementation=impl, wall_s=med,
                wall_q1_s=q1, wall_q3_s=q3, kernel_s=kt, kernels_per_step=kcount, kernel_by_category_s=cats,
                top_kernels_s=top, cache_layout="none")


def summary(r):
    """One log line's numbers for a step: wall, kernel time, kernels, kernel time by category."""
    return (f"wall {r['wall_s'] * 1e3:.2f} ms, kernels {r['kernel_s'] * 1e3:.2f} ms ({r['kernels_per_step']:.0f}) "
            + ", ".join(f"{c} {v * 1e3:.2f}" for c, v in r['kernel_by_category_s'].items()))


# (model, experts, top-k, hidden, expert FFN width)
GROUPED_SHAPES = {"qwen3-30b-a3b": (128, 8, 2048, 768), "deepseek-v2-lite": (64, 6, 2048, 1408),
                  "mixtral-8x7b": (8, 2, 4096, 14336)}
GROUPED_MODELS = ["qwen3-30b-a3b", "deepseek-v2-lite"]


def grouped_mm_cases(deadline):
    """torch._grouped_mm (what transformers 5's grouped_mm experts call) at decode routing."""
    out = []
    for model in GROUPED_MODELS:
        E, k, d, inter = GROUPED_SHAPES[model]
        for T in (1, 8, 64, 256):
            for part, n_out, k_dim in (("gate_up", 2 * inter, d), ("down", d, inter)):
                if time.perf_counter() > deadline:
                    return out
                g = torch.Generator(device="cuda").manual_seed(T)
                ids = torch.rand(T, E, device="cuda", generator=g).topk(k, dim=-1).indices.flatten()
                counts = torch.bincount(ids, minlength=E)
                offs = torch.cumsum(counts, 0).to(torch.int32)
                rows = T * k
                touched = int((counts > 0).sum())
                # The touched experts' weights are what a decode step streams; as many weight copies
                # as keep them out of L2 (2x L2 over the rotation, as harness.time_case rotates inputs).
                set_bytes = 2 * (touched * n_out * k_dim + rows * k_dim)
                copies = 1 if set_bytes >= 2 * harness.L2_BYTES else -(-2 * harness.L2_BYTES // set_bytes)
                pool = [torch.randn(E, n_out, k_dim, device="cuda", dtype=torch.bfloat16) * k_dim ** -0.5
                        for _ in range(copies)]
                made = [0]

                def make_set():
                    made[0] += 1
                    return (torch.randn(rows, k_dim, device="cuda", dtype=torch.bfloat16), pool[made[0] % copies])

                def fn(x, w):
                    return torch._grouped_mm(x, w.transpose(-2, -1), offs=offs)

                def check(s):
                    x, w = s
                    y = fn(x, w).float()
                    ref = torch.empty_like(y)
                    start = 0
                    for e, c in enumerate(counts.tolist()):
                        if c:
                            ref[start:start + c] = x[start:start + c].float() @ w[e].float().t()
                        start += c
                    return harness.rel_error(y, ref)
                case = dict(name=f"grouped_mm_{model}_{part}_T{T}", kernel="grouped_gemm", dtype="bf16",
                            implementation="torch._grouped_mm", m=rows, n=n_out, k=k_dim, batch=E,
                            experts=E, top_k=k, tokens=T, experts_touched=touched,
                            flops=2 * rows * n_out * k_dim,
                            bytes=2 * (touched * n_out * k_dim + rows * (k_dim + n_out)))
                r = harness.run_case(case, make_set, fn, check, set_bytes, 0.3)
                r["weight_copies"] = copies
                out.append(r)
                del pool
    return out


def topk_cases(deadline):
    out = []
    for model, E, k in (("qwen3-30b-a3b", 128, 8), ("deepseek-v2-lite", 64, 6)):
        for T in (1, 64, 4096):
            if time.perf_counter() > deadline:
                return out

            def make_set():
                return (torch.randn(T, E, device="cuda", dtype=torch.bfloat16),)

            def fn(x):
                p = torch.softmax(x, dim=-1, dtype=torch.float)
                return torch.topk(p, k, dim=-1)

            def check(s):
                v = fn(s[0]).values
                ref = torch.topk(torch.softmax(s[0].double(), dim=-1), k, dim=-1).values
                return harness.rel_error(v.double(), ref)
            case = dict(name=f"topk_softmax_{model}_T{T}", kernel="moe_topk", dtype="bf16",
                        implementation="torch.softmax+topk", rows=T, cols=E, top_k=k, flops=0,
                        bytes=T * E * 2 + T * k * 12)
            out.append(harness.run_case(case, make_set, fn, check, T * E * 2, 0.3))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=240.0, help="seconds for the whole run")
    ap.add_argument("--models", default="qwen3-30b-a3b,deepseek-v2-lite,mixtral-8x7b")
    ap.add_argument("--contiguous-cache", action="store_true",
                    help="copy the cropped cache back to contiguous between decode steps, as generate() leaves it")
    ap.add_argument("--no-kernels", action="store_true", help="steps only (skip the grouped_mm / top-k cases)")
    ap.add_argument("--grouped-models", default=",".join(GROUPED_MODELS),
                    help="models whose expert shapes the grouped_mm cases take (of " + ",".join(GROUPED_SHAPES) + ")")
    ap.add_argument("--no-topk", action="store_true", help="skip the top-k cases")
    a = ap.parse_args()
    global CONTIGUOUS
    CONTIGUOUS = a.contiguous_cache
    GROUPED_MODELS[:] = a.grouped_models.split(",") if a.grouped_models else []
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    end = t0 + a.budget
    logf = open(f"{a.out}/run.log", "a")

    def log(s):
        line = f"[{time.perf_counter() - t0:7.1f}s] {s}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()
    harness.init()
    import transformers
    meta = dict(date=datetime.datetime.utcnow().isoformat() + "Z", device=harness.device_meta(),
                torch=torch.__version__, cuda=torch.version.cuda, transformers=transformers.__version__,
                has_grouped_mm=hasattr(torch, "_grouped_mm"), budget_s=a.budget,
                cache_layout="contiguous" if a.contiguous_cache else "cropped",
                env={k: os.environ.get(k) for k in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST",
                                                     "NVSHMEM_DISABLE_NVLS", "CUDA_VISIBLE_DEVICES")})
    steps, kernels = [], []

    def save():
        # One file named hf.json with no top-level "cases": a data file of its own scripts, not a
        # perfmodel result file (tests/test_results.cpp reads every other JSON under results/).
        json.dump(dict(meta=meta, steps=steps, kernel_cases=kernels), open(f"{a.out}/hf.json", "w"), indent=1)
    log(f"torch {torch.__version__} transformers {transformers.__version__} {meta['device']}")
    save()
    # Kernels first: cheap, and they need no model in memory.
    with torch.no_grad():
        groups = (grouped_mm_cases,) if a.no_topk else (grouped_mm_cases, topk_cases)
        for group in () if a.no_kernels else groups:
            try:
                for r in group(t0 + min(40, 0.15 * a.budget)):
                    kernels.append(r)
                    log(f"{r['name']}: ok {r['ok']} {r.get('error', '')} median {r.get('median_s') or 0:.3e} s "
                        f"kernels {r.get('kernel_names')}")
                    save()
            except Exception:
                log(f"{group.__name__} failed: {traceback.format_exc()}")
    models = a.models.split(",")
    for mi, key in enumerate(models):
        left = end - time.perf_counter()
        share = left / (len(models) - mi)  # what is left, split over the models still to run
        if key == "mixtral-8x7b" and left < 70:
            log(f"{key}: skipped, {left:.0f} s left")
            continue
        stop = time.perf_counter() + share
        try:
            tb = time.perf_counter()
            m, cfg = build(key)
            impl = experts_impl(m)
            log(f"{key}: built in {time.perf_counter() - tb:.1f} s, experts implementation {impl}, "
                f"{sum(p.numel() for p in m.parameters()):,} params")
            with torch.no_grad():
                for bi, (b, ctx) in enumerate(POINTS[key]):
                    if time.perf_counter() > stop - 0.25 * share:  # keep time for prefill
                        break
                    try:
                        r = decode_point(m, cfg, key, b, ctx, impl)
                        steps.append(r)
                        log(f"{key} decode b{b} ctx{ctx} [{impl}]: {summary(r)}")
                    except Exception:
                        log(f"{key} decode b{b} ctx{ctx} failed: {traceback.format_exc()[-600:]}")
                    torch.cuda.empty_cache()
                    save()
                for b, ctx in ((1, 2048), (4, 2048)):
                    if time.perf_counter() > stop - 0.05 * share and b != 1:
                        break
                    try:
                        r = prefill_point(m, cfg, key, b, ctx, impl)
                        steps.append(r)
                        log(f"{key} prefill b{b} ctx{ctx}: {summary(r)}")
                    except Exception:
                        log(f"{key} prefill b{b} failed: {traceback.format_exc()[-600:]}")
                    save()
                if impl != "grouped_mm" and hasattr(m, "set_experts_implementation") and time.perf_counter() < stop:
                    try:
                        m.set_experts_implementation("grouped_mm")
                        for b, ctx in ((1, 512), (16, 2048)):
                            if time.perf_counter() > stop:
                                break
                            r = decode_point(m, cfg, key, b, ctx, "grouped_mm")
                            steps.append(r)
                            log(f"{key} decode b{b} ctx{ctx} [grouped_mm]: wall {r['wall_s'] * 1e3:.2f} ms, "
                                f"kernels {r['kernel_s'] * 1e3:.2f} ms ({r['kernels_per_step']:.0f})")
                            save()
                    except Exception:
                        log(f"{key} grouped_mm repeat failed: {traceback.format_exc()[-600:]}")
            del m
        except Exception:
            log(f"{key} failed: {traceback.format_exc()[-1500:]}")
        torch.cuda.empty_cache()
    log(f"done in {time.perf_counter() - t0:.1f} s: {len(steps)} steps, {len(kernels)} kernel cases")
    save()


if __name__ == "__main__":
    main()
