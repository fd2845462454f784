#!/usr/bin/env python3
"""h200-moe6: the two kernel mechanisms branch moe5 left open (issue 11), measured in one call.

    python3 validation/scripts/moe/run_moe6.py OUT_DIR [--budget S]

(a) `pair`: torch._grouped_mm's 64 x 128 pingpong kernel (every case keeps the mean rows over the
    weight's experts <= 128) at fixed weights and balanced routing, r rows on every expert, r = 8,
    32, 64, 65, 96, 128. CUTLASS's grouped tile scheduler rounds an expert's M tiles up to the 2 x 1
    cluster (sm90_tile_scheduler_group.hpp, problem_blocks_m = round_up(ctas_along_m, 2)), so r <= 64
    runs the same CTA pairs as r = 128 with the partner's A rows out of bounds: any time difference
    between r = 64 and r = 128 is the partner's rows, not the tiles or the waves. Shapes: Mixtral-8x7B
    gate_up (E 8, N 28672, K 4096: 448 CTA tiles an expert, a CTA rarely changes expert) and down
    (N 4096, K 14336), Qwen3-30B-A3B gate_up (E 128, N 1536, K 2048: every tile a new expert, where
    the producer drains its pipeline to rewrite the TMA descriptors), and two controls at Mixtral
    gate_up's bytes: the weight stored N-contiguous (`nmajor`: the B tile's TMA box transposed) and
    split into 64 experts of N 3584 (`split64`: every tile a new expert).
(b) `fmoe`: vllm_style_moe.py's grouped GEMM in its w2 form (T k = 64 routed rows, routing weight in
    the epilogue) at Mixtral decode T = 32 with vLLM's default 64 x 64 x 32 tile, over (N, K) that
    separate the CTAs under a wave (512-3584 at 8 experts) from the K a CTA walks (4096-14336), and
    BLOCK_K 64 at two of them.
Every case is checked against fp32 first (harness.run_case) and timed by harness.time_case (CUDA
graph, rotating sets > 2x L2). Writes OUT_DIR/hf.json after every case; stops at --budget.
"""
import argparse
import datetime
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402
import triton  # noqa: E402

import harness  # noqa: E402
import vllm_style_moe as vmoe  # noqa: E402
from run_moe5 import kernel_family, run_parts  # noqa: E402

# (label, experts, N, K, weight stored N-contiguous)
PAIR_SHAPES = (("mixtral_gate_up", 8, 28672, 4096, False), ("qwen3_gate_up", 128, 1536, 2048, False),
               ("mixtral_down", 8, 4096, 14336, False), ("mixtral_gate_up_nmajor", 8, 28672, 4096, True),
               ("mixtral_gate_up_split64", 64, 3584, 4096, False))
PAIR_ROWS = (128, 64, 32, 96, 65, 8)  # most informative first
CONTROL_ROWS = (128, 64)
# (N, K) of the w2-form fused_moe GEMM at 8 experts, T = 32; BLOCK_K 64 too where marked
FMOE_SHAPES = ((4096, 14336, True), (28672, 4096, True), (4096, 4096, False), (8192, 14336, False),
               (14336, 14336, False), (16384, 4096, False))


def pair_case(label, E, N, K, nmajor, r, w):
    rows = E * r
    offs = torch.arange(1, E + 1, device="cuda", dtype=torch.int32) * r

    def make_set():
        return (torch.randn(rows, K, device="cuda", dtype=torch.bfloat16),)

    def fn(x):  # nmajor: w is [E, K, N] (N contiguous); else [E, N, K] passed transposed
        return torch._grouped_mm(x, w if nmajor else w.transpose(-2, -1), offs=offs)

    def check(s):  # the first 8 rows of each expert against fp32
        x, out = s[0], fn(s[0]).float()
        got, ref = [], []
        for e in range(E):
            sl = slice(e * r, e * r + min(r, 8))
            got.append(out[sl])
            we = w[e].float() if nmajor else w[e].float().t()
            ref.append(x[sl].float() @ we)
        return harness.rel_error(torch.cat(got), torch.cat(ref))
    case = dict(name=f"pair6_{label}_r{r}", kernel="grouped_gemm", dtype="bf16", implementation="torch._grouped_mm",
                shape=label, experts=E, groups=E, top_k=0, tokens=0, routing="balanced", rows_per_expert=r,
                experts_touched=E, b_n_contiguous=nmajor, m=rows, n=N, k=K, flops=2 * rows * N * K,
                bytes=2 * (E * N * K + rows * (K + N)))
    res = harness.run_case(case, make_set, fn, check, 2 * (rows * (K + N) + E * N * K), 0.1)
    if res.get("kernel_names"):
        res["kernel_family"], res["mma_tile"] = kernel_family(res["kernel_names"])
        res["kernel_names"] = [n[:120] + ("..." if len(n) > 120 else "") for n in res["kernel_names"]]
    return res


def pair_part(deadline, emit, log):
    for label, E, N, K, nmajor in PAIR_SHAPES:
        if time.perf_counter() > deadline:
            log(f"pair {label}: skipped (budget)")
            continue
        shape = (E, K, N) if nmajor else (E, N, K)
        w = torch.randn(*shape, device="cuda", dtype=torch.bfloat16) * K ** -0.5
        for r in CONTROL_ROWS if label.endswith(("nmajor", "split64")) else PAIR_ROWS:
            if time.perf_counter() > deadline:
                break
            try:
                res = pair_case(label, E, N, K, nmajor, r, w)
            except Exception as e:
                res = dict(name=f"pair6_{label}_r{r}", ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
            emit("pair_cases", res)
        del w
        torch.cuda.empty_cache()


def fmoe_part(deadline, emit, log):
    E, k, T = 8, 2, 32
    gen = torch.Generator(device="cuda").manual_seed(6)
    logits = torch.randn(T, E, device="cuda", generator=gen)
    topw, ids = torch.topk(torch.softmax(logits, -1), k, dim=-1)
    topw, ids = (topw / topw.sum(-1, keepdim=True)).float().contiguous(), ids.to(torch.int32).contiguous()
    counts = torch.bincount(ids.flatten().long(), minlength=E).tolist()
    for N, K, also_bk64 in FMOE_SHAPES:
        w = torch.randn(E, N, K, device="cuda", dtype=torch.bfloat16) * K ** -0.5
        for vname in ("default", "bk64") if also_bk64 else ("default",):
            if time.perf_counter() > deadline:
                log("fmoe: budget")
                return
            cfg = dict(vmoe.default_config(T, E), **({"BK": 64} if vname == "bk64" else {}))
            sorted_ids, expert_ids, post_pad = vmoe.moe_align_block_size(ids, E, cfg["BM"])
            out = torch.empty(T * k, N, device="cuda", dtype=torch.bfloat16)

            def fn(a_, cfg_=cfg, si=sorted_ids, ei=expert_ids, pp=post_pad, w_=w, out_=out):
                return vmoe.fused_moe_gemm(a_, w_, out_, topw, si, ei, pp, 1, True, cfg_)

            def make_set(K_=K):
                return (torch.randn(T * k, K_, device="cuda", dtype=torch.bfloat16),)

            def check(s, w_=w):  # the first 8 picks against fp32
                got = fn(*s).float()[:8]
                picks = ids.flatten().long()[:8]
                src = s[0].float()[:8]
                ref = torch.stack([w_[int(e)].float() @ src[i] for i, e in enumerate(picks.tolist())])
                return harness.rel_error(got, ref * topw.flatten()[:8, None])
            bm, bn = cfg["BM"], cfg["BN"]
            blocks = sum(triton.cdiv(c, bm) for c in counts if c)
            case = dict(name=f"fmoe6_N{N}_K{K}_{vname}", kernel="grouped_gemm", dtype="bf16",
                        implementation="triton.vllm_style_fused_moe_gemm", tokens=T, top_k=k, experts=E, variant=vname,
                        config=cfg, rows_per_expert=counts, experts_touched=sum(1 for c in counts if c), n=N, k=K,
                        m=T * k, ctas=blocks * triton.cdiv(N, bn), flops=2 * T * k * N * K,
                        bytes=2 * (sum(1 for c in counts if c) * N * K + T * k * (K + N)))
            try:
                res = harness.run_case(case, make_set, fn, check, 2 * E * N * K, 0.1, want_kernels=False)
            except Exception as e:
                res = dict(case, ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
            emit("fmoe_cases", res)
        del w
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds for the whole run")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    harness.init()
    data = dict(meta=dict(harness.device_meta(), torch=torch.__version__, triton=triton.__version__,
                          started=datetime.datetime.now(datetime.timezone.utc).isoformat()),
                pair_cases=[], fmoe_cases=[])
    def describe(part, r):
        return f" {r.get('kernel_family', '')} clk {r.get('sm_clock_mhz_min')}-{r.get('sm_clock_mhz_max')}"
    run_parts(a.out, data, (("pair", pair_part, 0.68), ("fmoe", fmoe_part, 0.32)), a.budget, t0, 1.2, describe)

if __name__ == "__main__":
    main()
