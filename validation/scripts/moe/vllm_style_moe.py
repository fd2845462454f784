"""A vLLM-style fused MoE layer in Triton (issue 11, fused profile; written here from the design of
vLLM's fused_moe, not copied): the kernels a serving engine runs for one unquantized MoE layer.

  1. router GEMM (cuBLAS, x @ W_gate^T)
  2. top-k softmax (one Triton kernel per token row: softmax in fp32, k arg-max passes,
     renormalization where the model has it; vLLM's topk_softmax)
  3-4. moe_align_block_size in two kernels: (a) one program counts the picks per expert, pads each
     expert's count to BLOCK_M, writes the exclusive offsets, each BLOCK_M block's expert id, the
     padded total, and fills the sorted-id slots with the sentinel T*k; (b) every pick takes its
     slot with an atomic add on its expert's cursor
  5. ONE grouped GEMM for w13 over the sorted ids (the A rows gathered through sorted_id // k
     inside the kernel), BLOCK_M x BLOCK_N x BLOCK_K from vLLM's default config by M
  6. silu_and_mul
  7. ONE grouped GEMM for w2 with the routing weight multiplied into the accumulator
  8. the sum over the k picks (vLLM's moe_sum), the shared experts' output added in the same pass
Shared experts (DeepSeek-V2-Lite) run as a dense MLP (cuBLAS, silu_and_mul, cuBLAS) before 8.
Every step is capturable (no host sync), so the layer replays as one CUDA graph.
"""
import torch
import triton
import triton.language as tl

from fused_moe_layer import reference_from_routing, silu_mul


def default_config(T, E):
    """vLLM's default fused_moe config (no tuned JSON for the shape): small tiles while the tokens
    are at most the experts (decode: a few rows per expert), 64 x 64 x 32 beyond."""
    if T <= E:
        return dict(BM=16, BN=32, BK=64, GM=1, num_warps=4, num_stages=3)
    return dict(BM=64, BN=64, BK=32, GM=8, num_warps=4, num_stages=3)


@triton.jit
def _topk_softmax_kernel(LOGITS, W, IDS, E, s_l, K: tl.constexpr, KP: tl.constexpr, EP: tl.constexpr,
                         RENORM: tl.constexpr):
    t = tl.program_id(0)
    offs = tl.arange(0, EP)
    m = offs < E
    x = tl.load(LOGITS + t * s_l + offs, mask=m, other=float("-inf")).to(tl.float32)
    p = tl.exp(x - tl.max(x, 0))
    p = p / tl.sum(p, 0)
    p = tl.where(m, p, -1.0)
    slots = tl.arange(0, KP)
    wv = tl.zeros([KP], tl.float32)
    iv = tl.zeros([KP], tl.int32)
    for j in tl.static_range(K):
        best = tl.max(p, 0)
        idx = tl.min(tl.where(p == best, offs, EP), 0)  # the lowest index among ties
        wv = tl.where(slots == j, best, wv)
        iv = tl.where(slots == j, idx, iv)
        p = tl.where(offs == idx, -1.0, p)
    if RENORM:
        wv = wv / tl.sum(wv, 0)
    tl.store(W + t * K + slots, wv, mask=slots < K)
    tl.store(IDS + t * K + slots, iv, mask=slots < K)


def topk_softmax(logits, k, renorm):
    T, E = logits.shape
    w = torch.empty(T, k, device=logits.device, dtype=torch.float32)
    ids = torch.empty(T, k, device=logits.device, dtype=torch.int32)
    _topk_softmax_kernel[(T,)](logits, w, ids, E, logits.stride(0), K=k, KP=triton.next_power_of_2(k),
                               EP=triton.next_power_of_2(E),
                               RENORM=renorm, num_warps=1)
    return w, ids


@triton.jit
def _align_plan_kernel(IDS, CURSOR, EXPERT_IDS, POST_PAD, SORTED, n, max_len, E,
                       EP: tl.constexpr, BM: tl.constexpr, CHUNK: tl.constexpr):
    experts = tl.arange(0, EP)
    counts = tl.zeros([EP], tl.int32)
    for c0 in range(0, n, CHUNK):
        offs = c0 + tl.arange(0, CHUNK)
        ids = tl.load(IDS + offs, mask=offs < n, other=EP)
        counts += tl.sum((ids[:, None] == experts[None, :]).to(tl.int32), 0)
    padded = tl.where(experts < E, (counts + BM - 1) // BM * BM, 0)
    ends = tl.cumsum(padded, 0)
    starts = ends - padded
    total = tl.sum(padded, 0)
    tl.store(CURSOR + experts, starts, mask=experts < E)
    tl.store(POST_PAD, total)
    # Block b of BLOCK_M rows belongs to the expert whose [start, end) holds b * BM.
    for b0 in range(0, max_len // BM + 1, CHUNK):
        blk = b0 + tl.arange(0, CHUNK)
        owner = tl.sum((blk[:, None] * BM >= ends[None, :]).to(tl.int32), 1)
        tl.store(EXPERT_IDS + blk, tl.minimum(owner, E - 1), mask=blk * BM < max_len)
    for s0 in range(0, max_len, CHUNK):
        offs = s0 + tl.arange(0, CHUNK)
        tl.store(SORTED + offs, tl.zeros([CHUNK], tl.int32) + n, mask=offs < max_len)


@triton.jit
def _align_scatter_kernel(IDS, CURSOR, SORTED, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    ids = tl.load(IDS + offs, mask=m, other=0)
    slot = tl.atomic_add(CURSOR + ids, tl.full([BLOCK], 1, tl.int32), mask=m)
    tl.store(SORTED + slot, offs, mask=m)


def moe_align_block_size(ids, E, BM):
    """ids [T, k] int32 -> (sorted_ids [max_len] int32: pick indices grouped by expert, each
    expert's run padded to BM with the sentinel T*k; expert_ids [max_len / BM]; post_pad [1])."""
    n = ids.numel()
    max_len = n + E * (BM - 1)
    dev = ids.device
    sorted_ids = torch.empty(max_len, device=dev, dtype=torch.int32)
    expert_ids = torch.empty(triton.cdiv(max_len, BM), device=dev, dtype=torch.int32)
    post_pad = torch.empty(1, device=dev, dtype=torch.int32)
    cursor = torch.empty(E, device=dev, dtype=torch.int32)
    _align_plan_kernel[(1,)](ids, cursor, expert_ids, post_pad, sorted_ids, n, max_len, E,
                             EP=triton.next_power_of_2(E), BM=BM, CHUNK=256, num_warps=8)
    _align_scatter_kernel[(triton.cdiv(n, 256),)](ids, cursor, sorted_ids, n, BLOCK=256)
    return sorted_ids, expert_ids, post_pad


@triton.jit
def _fused_moe_gemm_kernel(A, B, C, TOPW, SORTED, EXPERT_IDS, POST_PAD, N, K, EM, n_valid,
                           s_am, s_be, s_bn, s_bk, s_cm,
                           TOP_K: tl.constexpr, MUL_W: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                           BK: tl.constexpr, GM: tl.constexpr):
    # C[sorted row] = A[sorted row // TOP_K] @ B[expert]^T (x its routing weight): B is [E, N, K].
    pid = tl.program_id(0)
    num_m = tl.cdiv(EM, BM)
    num_n = tl.cdiv(N, BN)
    group = pid // (GM * num_n)
    first_m = group * GM
    size_m = tl.minimum(num_m - first_m, GM)
    pid_m = first_m + (pid % (GM * num_n)) % size_m
    pid_n = (pid % (GM * num_n)) // size_m
    if pid_m * BM >= tl.load(POST_PAD):
        return  # past the padded rows: the grid is sized for the worst routing
    rows = tl.load(SORTED + pid_m * BM + tl.arange(0, BM))
    rmask = rows < n_valid
    e = tl.load(EXPERT_IDS + pid_m).to(tl.int64)
    offs_n = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptr = A + (rows // TOP_K)[:, None].to(tl.int64) * s_am + offs_k[None, :]
    b_ptr = B + e * s_be + offs_n[None, :].to(tl.int64) * s_bn + offs_k[:, None] * s_bk
    acc = tl.zeros([BM, BN], tl.float32)
    for k0 in range(0, tl.cdiv(K, BK)):
        kmask = offs_k < K - k0 * BK
        a = tl.load(a_ptr, mask=rmask[:, None] & kmask[None, :], other=0.0)
        b = tl.load(b_ptr, mask=kmask[:, None], other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptr += BK
        b_ptr += BK * s_bk
    if MUL_W:
        acc = acc * tl.load(TOPW + rows, mask=rmask, other=0.0)[:, None]
    cols = pid_n * BN + tl.arange(0, BN)
    c_ptr = C + rows[:, None].to(tl.int64) * s_cm + cols[None, :]
    tl.store(c_ptr, acc.to(C.dtype.element_ty), mask=rmask[:, None] & (cols[None, :] < N))


def fused_moe_gemm(a, w, out, topw, sorted_ids, expert_ids, post_pad, top_k, mul_w, cfg):
    """out [T k, N] (rows by pick index) from a [rows, K] and w [E, N, K]."""
    E, N, K = w.shape
    EM = sorted_ids.numel()
    grid = (triton.cdiv(EM, cfg["BM"]) * triton.cdiv(N, cfg["BN"]),)
    _fused_moe_gemm_kernel[grid](a, w, out, topw, sorted_ids, expert_ids, post_pad, N, K, EM, out.shape[0],
                                 a.stride(0), w.stride(0), w.stride(1), w.stride(2), out.stride(0),
                                 TOP_K=top_k, MUL_W=mul_w, BM=cfg["BM"], BN=cfg["BN"], BK=cfg["BK"], GM=cfg["GM"],
                                 num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
    return out


@triton.jit
def _moe_sum_kernel(Y, EXTRA, OUT, d, K: tl.constexpr, HAS_EXTRA: tl.constexpr, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = c < d
    acc = tl.zeros([BLOCK], tl.float32)
    for j in tl.static_range(K):
        acc += tl.load(Y + (t * K + j) * d + c, mask=m, other=0.0).to(tl.float32)
    if HAS_EXTRA:
        acc += tl.load(EXTRA + t * d + c, mask=m, other=0.0).to(tl.float32)
    tl.store(OUT + t * d + c, acc.to(OUT.dtype.element_ty), mask=m)


def moe_sum(y, T, k, extra=None):
    d = y.shape[1]
    out = torch.empty(T, d, device=y.device, dtype=y.dtype)
    _moe_sum_kernel[(T, triton.cdiv(d, 1024))](y, extra if extra is not None else y, out, d, K=k,
                                                HAS_EXTRA=extra is not None, BLOCK=1024)
    return out


def route(x, wts, k, renorm):
    logits = x @ wts["router"].t()
    return topk_softmax(logits, k, renorm)


def moe_layer(x, wts, k, renorm, cfg=None):
    """x [T, d] bf16 -> [T, d] bf16. wts as fused_moe_layer.make_weights (w13 [E, 2I, d], w2 [E, d, I])."""
    T, d = x.shape
    E, two_i, _ = wts["w13"].shape
    cfg = cfg or default_config(T, E)
    topw, ids = route(x, wts, k, renorm)
    sorted_ids, expert_ids, post_pad = moe_align_block_size(ids, E, cfg["BM"])
    h = torch.empty(T * k, two_i, device=x.device, dtype=x.dtype)
    fused_moe_gemm(x, wts["w13"], h, topw, sorted_ids, expert_ids, post_pad, k, False, cfg)
    act = silu_mul(h)
    y = torch.empty(T * k, d, device=x.device, dtype=x.dtype)
    fused_moe_gemm(act, wts["w2"], y, topw, sorted_ids, expert_ids, post_pad, 1, True, cfg)
    shared = None
    if wts["shared"] is not None:
        w13s, w2s = wts["shared"]
        shared = silu_mul(x @ w13s.t()) @ w2s.t()
    return moe_sum(y, T, k, shared)


def reference(x, wts, k, renorm):
    """fp32 expert by expert, over the routing the layer's own top-k kernel picked (ties in bf16
    logits may break differently from torch.topk; the picks are checked separately)."""
    topw, ids = route(x, wts, k, renorm)
    return reference_from_routing(x, wts, topw, ids)


def routing_error(x, wts, k, renorm):
    """Largest gap between the kernel's sorted top-k weights and torch's (softmax, topk, renorm)."""
    topw, _ = route(x, wts, k, renorm)
    probs = torch.softmax((x @ wts["router"].t()).float(), dim=-1)
    w, _ = torch.topk(probs, k, dim=-1)
    if renorm:
        w = w / w.sum(dim=-1, keepdim=True)
    return (topw - w).abs().max().item()
