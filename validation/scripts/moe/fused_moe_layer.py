"""One MoE layer as a serving engine runs it, for CUDA-graph timing (issue 11, fused profile).

The production stand-in (no vLLM on the device): router GEMM, softmax + top-k (+ renormalization
where the model has it), the routed rows sorted by expert (stable sort + searchsorted offsets,
the job of vLLM's moe_align_block_size), the rows gathered, torch._grouped_mm for gate_up,
SiLU(gate) * up in one Triton kernel (vLLM's silu_and_mul), torch._grouped_mm for down, and a
Triton weighted un-permute that sums each token's k rows (vLLM's moe_sum with the routing weight
applied). Shared experts (DeepSeek-V2-Lite) run as a dense gate_up / silu_mul / down MLP.
Every step is capturable (no host sync), so the whole layer replays as one CUDA graph.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _silu_mul_kernel(H, A, rows, I, s_h, s_a, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = c < I
    g = tl.load(H + r * s_h + c, mask=m, other=0.0).to(tl.float32)
    u = tl.load(H + r * s_h + I + c, mask=m, other=0.0).to(tl.float32)
    tl.store(A + r * s_a + c, (g / (1.0 + tl.exp(-g)) * u).to(A.dtype.element_ty), mask=m)


def silu_mul(h):
    rows, two_i = h.shape
    I = two_i // 2
    a = torch.empty(rows, I, device=h.device, dtype=h.dtype)
    BLOCK = 1024
    _silu_mul_kernel[(rows, triton.cdiv(I, BLOCK))](h, a, rows, I, h.stride(0), a.stride(0), BLOCK=BLOCK)
    return a


@triton.jit
def _unpermute_kernel(Y, INV, W, OUT, d, s_y, s_o, K: tl.constexpr, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = c < d
    acc = tl.zeros([BLOCK], tl.float32)
    for j in tl.static_range(K):
        row = tl.load(INV + t * K + j)
        w = tl.load(W + t * K + j).to(tl.float32)
        acc += w * tl.load(Y + row * s_y + c, mask=m, other=0.0).to(tl.float32)
    tl.store(OUT + t * s_o + c, acc.to(OUT.dtype.element_ty), mask=m)


def unpermute_sum(y, inv, weights, T, k):
    """out[t] = sum_j weights[t, j] * y[inv[t k + j]]: one kernel, no atomics."""
    d = y.shape[1]
    out = torch.empty(T, d, device=y.device, dtype=y.dtype)
    BLOCK = 1024
    _unpermute_kernel[(T, triton.cdiv(d, BLOCK))](y, inv, weights, out, d, y.stride(0), out.stride(0), K=k,
                                                   BLOCK=BLOCK)
    return out


def make_weights(E, d, I, shared_I, dev, gen=None):
    """One layer's weights, bf16, scaled so activations stay O(1): router [E, d], w13 [E, 2I, d]
    (gate rows then up rows), w2 [E, d, I], and the shared MLP's (or None)."""
    def rnd(*shape):
        return (torch.randn(*shape, device=dev, dtype=torch.bfloat16, generator=gen) * shape[-1] ** -0.5)
    shared = (rnd(2 * shared_I, d), rnd(d, shared_I)) if shared_I else None
    return dict(router=rnd(E, d), w13=rnd(E, 2 * I, d), w2=rnd(E, d, I), shared=shared)


def moe_layer(x, wts, k, renorm):
    """x [T, d] bf16 -> [T, d] bf16: the MoE block's output (routed experts + shared)."""
    T = x.shape[0]
    E = wts["router"].shape[0]
    logits = x @ wts["router"].t()
    probs = torch.softmax(logits, dim=-1, dtype=torch.float32)
    w, ids = torch.topk(probs, k, dim=-1)
    if renorm:
        w = w / w.sum(dim=-1, keepdim=True)
    sorted_ids, perm = torch.sort(ids.flatten(), stable=True)
    # Cumulative row counts per expert: the int32 end offsets torch._grouped_mm takes.
    offs = torch.searchsorted(sorted_ids, torch.arange(E, device=x.device, dtype=sorted_ids.dtype),
                              right=True).to(torch.int32)
    # Where each (token, pick) landed in the sorted rows: a scatter, not a second sort.
    inv = torch.empty_like(perm).scatter_(0, perm, torch.arange(perm.numel(), device=x.device, dtype=perm.dtype))
    xs = x.index_select(0, perm // k)
    h = torch._grouped_mm(xs, wts["w13"].transpose(-2, -1), offs=offs)
    y = torch._grouped_mm(silu_mul(h), wts["w2"].transpose(-2, -1), offs=offs)
    out = unpermute_sum(y, inv, w, T, k)
    if wts["shared"] is not None:
        w13s, w2s = wts["shared"]
        out = out + silu_mul(x @ w13s.t()) @ w2s.t()
    return out


def reference(x, wts, k, renorm):
    """fp32, expert by expert, from the same routing (ties in top-k broken the same way)."""
    probs = torch.softmax(x @ wts["router"].t(), dim=-1, dtype=torch.float32)
    w, ids = torch.topk(probs, k, dim=-1)
    if renorm:
        w = w / w.sum(dim=-1, keepdim=True)
    return reference_from_routing(x, wts, w, ids)


def reference_from_routing(x, wts, w, ids):
    """fp32 MoE block output for given top-k weights w [T, k] and expert ids [T, k]."""
    xf = x.float()
    out = torch.zeros_like(xf)
    ids = ids.long()
    for e in ids.unique().tolist():
        t, j = (ids == e).nonzero(as_tuple=True)
        g, u = (xf[t] @ wts["w13"][e].float().t()).chunk(2, dim=-1)
        out.index_add_(0, t, w[t, j, None] * ((torch.nn.functional.silu(g) * u) @ wts["w2"][e].float().t()))
    if wts["shared"] is not None:
        w13s, w2s = wts["shared"]
        g, u = (xf @ w13s.float().t()).chunk(2, dim=-1)
        out += (torch.nn.functional.silu(g) * u) @ w2s.float().t()
    return out
