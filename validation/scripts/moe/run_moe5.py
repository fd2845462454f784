#!/usr/bin/env python3
"""h200-moe5: the three open MoE/MLA kernel misses of issue 11, measured in one call.

    python3 validation/scripts/moe/run_moe5.py OUT_DIR [--budget S]

(a) `grouped`: torch._grouped_mm at prefill token counts T = 128-4096 for the expert shapes of
    Qwen3-30B-A3B, Mixtral-8x7B and DeepSeek-V2-Lite (gate_up and down), with balanced routing
    (every expert T k / E rows), a random router's routing (`uniform`) and a skewed one (`skewed`:
    a N(0, 1) bias per expert on the logits). PyTorch's GroupMM.cu picks its tile from the MEAN
    rows over the weight's experts (M = rows / E <= 128 or N <= 128: 64 x 128 x 128 pingpong, else
    128 x 256 x 64 cooperative); `forced_pingpong` cases give the weight extra experts with zero
    rows, which changes only that mean, so the same work runs on the pingpong kernel: the two
    kernels priced on identical problems. Kernel names (torch.profiler) say which kernel ran.
(b) `fused_moe`: vllm_style_moe.py's grouped GEMM alone (w13 and w2) at Mixtral decode T = 16,
    32, 64 (vLLM's default 64 x 64 x 32 tile, 4 warps, 3 stages) and variants (BLOCK_K 64, 4
    stages, BLOCK_N 128, 8 warps); the compiled kernel's registers and shared memory give the
    resident CTAs per SM.
(c) `mla`: mla_decode_triton.py's absorbed MLA decode at DeepSeek-V2-Lite's 16 heads, batch
    1-64 x ctx 512-32768, at three split counts around its `fill` policy: the whole call and the
    combine kernel alone, so the split kernel's and the combine's time separate.
Every timed case is checked against an fp32 reference first (harness.run_case); timing is
harness.time_case (CUDA graph, rotating inputs > 2x L2). Writes OUT_DIR/hf.json after every
case; a part past its share of the budget is cut short.
"""
import argparse
import datetime
import json
import math
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402
import triton  # noqa: E402

import harness  # noqa: E402
import mla_decode_triton as mla  # noqa: E402
import vllm_style_moe as vmoe  # noqa: E402

# (experts, top-k, hidden, expert FFN width): models/<key>.yaml
MODELS = {"qwen3-30b-a3b": (128, 8, 2048, 768), "mixtral-8x7b": (8, 2, 4096, 14336),
          "deepseek-v2-lite": (64, 6, 2048, 1408)}
TOKENS = (2048, 512, 4096, 1024, 128)  # most informative first


def kernel_family(names):
    s = " ".join(names)
    fam = "cooperative" if "Cooperative" in s else "pingpong" if "Pingpong" in s else "other"
    tile = "128x256" if "MMA_64x256x16" in s else "64x128" if "MMA_64x128x16" in s else "?"
    return fam, tile


def routing_counts(T, E, k, mode, gen):
    if mode == "balanced":
        return [T * k // E] * E
    bias = torch.randn(E, generator=gen) if mode == "skewed" else torch.zeros(E)
    logits = torch.randn(T, E, generator=gen) + bias
    ids = torch.topk(logits, k, dim=-1).indices.flatten()
    return torch.bincount(ids, minlength=E).tolist()


def grouped_case(model, gemm, T, mode, w_all, E, k, N, K, gen, forced):
    counts = routing_counts(T, E, k, mode, gen)
    rows = sum(counts)
    groups = E
    if forced:  # zero-row experts appended until the mean over the weight's experts is <= 128
        groups = max(E, -(-rows // 128))
        if groups > w_all.shape[0]:
            return None
    w = w_all[:groups]
    offs = torch.tensor(counts + [0] * (groups - E), device="cuda").cumsum(0).to(torch.int32)
    set_bytes = 2 * (rows * K + rows * N)

    def make_set():
        return (torch.randn(rows, K, device="cuda", dtype=torch.bfloat16),)

    def fn(x):
        return torch._grouped_mm(x, w.transpose(-2, -1), offs=offs)

    def check(s):  # the first 8 rows of each touched expert against fp32
        x = s[0]
        out = fn(x).float()
        got, ref, start = [], [], 0
        for e, c in enumerate(counts):
            if c:
                r = slice(start, start + min(c, 8))
                got.append(out[r])
                ref.append(x[r].float() @ w[e].float().t())
            start += c
        return harness.rel_error(torch.cat(got), torch.cat(ref))
    case = dict(name=f"grouped5_{model}_{gemm}_T{T}_{mode}" + ("_forced_pingpong" if forced else ""),
                kernel="grouped_gemm", dtype="bf16", implementation="torch._grouped_mm", model=model, gemm=gemm,
                tokens=T, routing=mode, forced_pingpong=forced, experts=E, top_k=k, groups=groups,
                rows_per_expert=counts, mean_rows_all_groups=rows / groups, m=rows, n=N, k=K,
                experts_touched=sum(1 for c in counts if c),
                flops=2 * rows * N * K,
                bytes=2 * (sum(1 for c in counts if c) * N * K + rows * (K + N)))
    r = harness.run_case(case, make_set, fn, check, set_bytes + 2 * sum(1 for c in counts if c) * N * K, 0.15)
    if r.get("kernel_names"):
        r["kernel_family"], r["mma_tile"] = kernel_family(r["kernel_names"])
        r["kernel_names"] = [n[:120] + ("..." if len(n) > 120 else "") for n in r["kernel_names"]]
    return r


def grouped_part(deadline, emit, log):
    gen = torch.Generator().manual_seed(5)
    for model, (E, k, d, I) in MODELS.items():
        for gemm, N, K in (("gate_up", 2 * I, d), ("down", d, I)):
            if time.perf_counter() > deadline:
                log(f"grouped {model} {gemm}: skipped (budget)")
                continue
            max_groups = max(E, -(-4096 * k // 128))
            # Only the real experts are written: the extra (zero-row) ones are never read.
            w_all = torch.empty(max_groups, N, K, device="cuda", dtype=torch.bfloat16)
            w_all[:E].copy_(torch.randn(E, N, K, device="cuda", dtype=torch.bfloat16) * K ** -0.5)
            plan = [(T, "balanced", False) for T in TOKENS]
            plan += [(T, "balanced", True) for T in TOKENS if T * k / E > 128 and N > 128]
            plan += [(T, m, False) for T in (2048, 512) for m in ("uniform", "skewed")]
            for T, mode, forced in plan:
                if time.perf_counter() > deadline:
                    break
                try:
                    r = grouped_case(model, gemm, T, mode, w_all, E, k, N, K, gen, forced)
                except Exception as e:
                    r = dict(name=f"grouped5_{model}_{gemm}_T{T}_{mode}", ok=False,
                             error=f"{type(e).__name__}: {str(e)[:300]}")
                if r is not None:
                    emit("grouped_cases", r)
            del w_all
            torch.cuda.empty_cache()


def fused_moe_part(deadline, emit, log):
    E, k, d, I = MODELS["mixtral-8x7b"]
    w13 = torch.randn(E, 2 * I, d, device="cuda", dtype=torch.bfloat16) * d ** -0.5
    w2 = torch.randn(E, d, I, device="cuda", dtype=torch.bfloat16) * I ** -0.5
    base = vmoe.default_config(32, E)
    variants = [("default", {}), ("bk64", dict(BK=64)), ("stages4", dict(num_stages=4)),
                ("bn128", dict(BN=128)), ("warps8", dict(num_warps=8))]
    for T in (32, 16, 64):
        x = torch.randn(T, d, device="cuda", dtype=torch.bfloat16)
        logits = torch.randn(T, E, device="cuda")
        topw, ids = torch.topk(torch.softmax(logits, -1), k, dim=-1)
        topw, ids = (topw / topw.sum(-1, keepdim=True)).float().contiguous(), ids.to(torch.int32).contiguous()
        counts = torch.bincount(ids.flatten().long(), minlength=E).tolist()
        for vname, over in variants:
            if time.perf_counter() > deadline:
                log("fused_moe: budget")
                return
            cfg = dict(base, **over)
            sorted_ids, expert_ids, post_pad = vmoe.moe_align_block_size(ids, E, cfg["BM"])
            for gemm, w, a_rows, topk_in, mul_w in (("w13", w13, x, k, False), ("w2", w2, None, 1, True)):
                Nn, Kk = w.shape[1], w.shape[2]
                a = a_rows if a_rows is not None else torch.randn(T * k, Kk, device="cuda", dtype=torch.bfloat16)
                out = torch.empty(T * k, Nn, device="cuda", dtype=torch.bfloat16)

                def fn(a_, out_=out, w_=w, topk_in_=topk_in, mul_w_=mul_w, cfg_=cfg, si=sorted_ids, ei=expert_ids,
                       pp=post_pad):
                    return vmoe.fused_moe_gemm(a_, w_, out_, topw, si, ei, pp, topk_in_, mul_w_, cfg_)

                def make_set(a_=a):
                    return (a_,)

                def check(s, w_=w, topk_in_=topk_in, mul_w_=mul_w):  # the first 8 picks against fp32
                    got = fn(*s).float()[:8]
                    picks = ids.flatten().long()[:8]
                    src = s[0].float()[torch.arange(8, device="cuda") // topk_in_]
                    ref = torch.stack([w_[int(e)].float() @ src[i] for i, e in enumerate(picks.tolist())])
                    if mul_w_:
                        ref = ref * topw.flatten()[:8, None]
                    return harness.rel_error(got, ref)
                case = dict(name=f"fused_moe5_mixtral_{gemm}_T{T}_{vname}", kernel="grouped_gemm", dtype="bf16",
                            implementation="triton.vllm_style_fused_moe_gemm", model="mixtral-8x7b", gemm=gemm,
                            tokens=T, variant=vname, config=cfg, experts=E, top_k=k, rows_per_expert=counts,
                            experts_touched=sum(1 for c in counts if c), n=Nn, k=Kk, m=T * k,
                            flops=2 * T * k * Nn * Kk,
                            bytes=2 * (sum(1 for c in counts if c) * Nn * Kk + T * k * (Kk + Nn)))
                try:
                    r = harness.run_case(case, make_set, fn, check, 2 * E * Nn * Kk, 0.15, want_kernels=False)
                except Exception as e:
                    r = dict(case, ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
                emit("fused_moe_cases", r)
    emit("fused_moe_compiled", dict(name="compiled variants", ok=True, variants=compiled_resources(vmoe._fused_moe_gemm_kernel)))


def compiled_resources(jitfn):
    """Registers, spills, shared memory, warps and stages of each compiled variant of a Triton kernel
    (Triton 3.x keeps them per device in device_caches)."""
    out = []
    try:
        for v in getattr(jitfn, "device_caches", {}).values():
            kc = v[0] if isinstance(v, tuple) else v
            for key, kern in kc.items():
                md = kern.metadata
                out.append(dict(key=str(key)[:300], n_regs=getattr(kern, "n_regs", None),
                                n_spills=getattr(kern, "n_spills", None), shared=getattr(md, "shared", None),
                                num_warps=getattr(md, "num_warps", None), num_stages=getattr(md, "num_stages", None)))
    except Exception as e:
        out.append(dict(error=f"{type(e).__name__}: {str(e)[:200]}"))
    return out


def mla_part(deadline, emit, log):
    heads = 16
    scale = mla.softmax_scale()
    width = mla.D_LAT + mla.D_PE
    points = [(b, L) for b in (16, 1, 64, 4) for L in (32768, 8192, 2048, 512)]
    for b, L in points:
        fill = mla.fill_splits(b, heads, L)
        for splits in sorted({fill, max(1, fill // 2), min(2 * fill, triton.cdiv(L, mla.BLOCK_N))}):
            if time.perf_counter() > deadline:
                log("mla: budget")
                return
            split_len, S = mla.split_plan(L, splits)

            def make_set():
                return (torch.randn(b, heads, width, device="cuda", dtype=torch.bfloat16),
                        torch.randn(b, L, width, device="cuda", dtype=torch.bfloat16))

            def fn(q, kv, splits_=splits):
                return mla.mla_decode(q, kv, scale, splits_)

            def check(s):
                return harness.rel_error(fn(*s).float(), mla.reference(*s, scale))
            set_bytes = 2 * (b * L * width + b * heads * width)
            case = dict(name=f"mla5_b{b}_ctx{L}_s{S}", kernel="attention_mla_decode", dtype="bf16",
                        implementation="triton.mla_decode_triton", model="deepseek-v2-lite", batch=b, heads=heads,
                        kv_heads=1, q_len=1, kv_len=L, head_dim=width, splits=S, split_len=split_len,
                        fill_splits=fill, ctas=b * triton.cdiv(heads, mla.BLOCK_H) * S,
                        flops=2 * b * heads * L * (width + mla.D_LAT), bytes=set_bytes + 2 * b * heads * mla.D_LAT)
            try:
                r = harness.run_case(case, make_set, fn, check, set_bytes, 0.12, want_kernels=False)
                if r["ok"]:  # the combine kernel alone, over the partials the split kernel wrote
                    mid_o = torch.randn(b, heads, S, mla.D_LAT, device="cuda", dtype=torch.float32)
                    mid_lse = torch.randn(b, heads, S, device="cuda", dtype=torch.float32)
                    out = torch.empty(b, heads, mla.D_LAT, device="cuda", dtype=torch.bfloat16)

                    def comb(mo, ml):
                        mla._combine_kernel[(b, heads)](mo, ml, out, S, mo.stride(0), mo.stride(1), mo.stride(2),
                                                        ml.stride(0), ml.stride(1), out.stride(0), out.stride(1),
                                                        DL=mla.D_LAT, num_warps=4)
                    t = harness.time_case(lambda: (torch.randn_like(mid_o), torch.randn_like(mid_lse)), comb,
                                          4 * (mid_o.numel() + mid_lse.numel()), 0.08)
                    r["combine_median_s"] = t["median_s"]
                    del mid_o, mid_lse, out
            except Exception as e:
                r = dict(case, ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
            emit("mla_cases", r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=150.0, help="seconds for the whole run")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    harness.init()
    data = dict(meta=dict(harness.device_meta(), torch=torch.__version__, triton=triton.__version__,
                          started=datetime.datetime.now(datetime.timezone.utc).isoformat()),
                grouped_cases=[], fused_moe_cases=[], fused_moe_compiled=[], mla_cases=[])
    shares = (("grouped", grouped_part, 0.55), ("fused_moe", fused_moe_part, 0.17), ("mla", mla_part, 0.28))

    def describe(part, r):
        return f" {r.get('kernel_family', '')} {r.get('mma_tile', '')}" if part == "grouped_cases" else ""
    run_parts(a.out, data, shares, a.budget, t0, 1.3, describe)


def run_parts(out, data, parts, budget, t0, slack, describe):
    """Runs each (name, part, share) within its share of the budget (times slack), logging every
    case to out/run.log and rewriting out/hf.json after each; describe(part, case) adds to a line."""
    logf = open(os.path.join(out, "run.log"), "a")

    def log(s):
        line = f"[{time.perf_counter() - t0:7.1f}s] {s}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    def emit(part, r):
        data[part].append(r)
        t = r.get("median_s")
        log(f"{r.get('name')}: ok={r.get('ok')} {t * 1e6 if t else float('nan'):.1f} us{describe(part, r)} "
            f"{r.get('error', '')}")
        with open(os.path.join(out, "hf.json"), "w") as f:
            json.dump(data, f, indent=1)
    for name, part, share in parts:
        deadline = min(t0 + budget, time.perf_counter() + share * budget * slack)
        try:
            part(deadline, emit, log)
        except Exception:
            log(f"{name} failed: {traceback.format_exc()[-800:]}")
        torch.cuda.empty_cache()
    data["meta"]["seconds"] = time.perf_counter() - t0
    with open(os.path.join(out, "hf.json"), "w") as f:
        json.dump(data, f, indent=1)
    log(f"done in {time.perf_counter() - t0:.1f} s")

if __name__ == "__main__":
    main()
