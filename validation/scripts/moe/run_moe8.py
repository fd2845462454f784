#!/usr/bin/env python3
"""h200-moe8: the vLLM-style routing kernels (vllm_style_moe.py: _topk_softmax_kernel, then
moe_align_block_size's _align_plan_kernel and _align_scatter_kernel) over a token sweep, to see how
their time grows from decode (latency: k serial warp rounds; one CTA's plan) into prefill.

    python3 validation/scripts/moe/run_moe8.py OUT_DIR [--budget S]

Per (experts, top_k, renorm) shape x T tokens: the router GEMM on fresh hidden rows (so the logits
are L2-warm as in a layer), the top-k, the align (BLOCK_M by vLLM's default config, as the layer
runs it). Checked first on every case: the top-k weights against torch's softmax + topk (+ renorm),
the align's sorted rows (every pick exactly once, each in a block owned by its expert, the padded
total). Timed: each kernel's device time per call, torch.profiler over REPS eager calls (as
h200-moe-fused2's kernel_device_s), median and quartiles. Also written: each compiled kernel's PTX
instruction counts by opcode (ptx_ops), to count the work of a loop iteration / a round.
Writes OUT_DIR/hf.json after every case and OUT_DIR/run.log.
"""
import argparse
import collections
import datetime
import json
import os
import re
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402

import harness  # noqa: E402
import vllm_style_moe as vmoe  # noqa: E402

# (experts, top_k, renorm, hidden): the three models of h200-moe-fused2 and DeepSeek-V3's 256 x 8.
SHAPES = {"mixtral-8x7b": (8, 2, True, 4096), "deepseek-v2-lite": (64, 6, False, 2048),
          "qwen3-30b-a3b": (128, 8, True, 2048), "deepseek-v3-256e": (256, 8, True, 7168)}
TOKENS = (1, 64, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
REPS = 20
SETS = 4


def check_topk(logits, w, ids, k, renorm):
    probs = torch.softmax(logits.float(), dim=-1)
    ref, _ = torch.topk(probs, k, dim=-1)
    if renorm:
        ref = ref / ref.sum(dim=-1, keepdim=True)
    picked = torch.gather(probs, 1, ids.long())
    if renorm:
        picked = picked / picked.sum(dim=-1, keepdim=True)
    return max((w - ref).abs().max().item(), (picked - w).abs().max().item())


def check_align(ids, sorted_ids, expert_ids, post_pad, E, BM):
    """True when every pick appears once, in a block owned by its expert, and the total is padded."""
    n = ids.numel()
    flat = ids.flatten().long()
    counts = torch.bincount(flat, minlength=E)
    total = int(((counts + BM - 1) // BM * BM).sum().item())
    if int(post_pad.item()) != total:
        return False
    s = sorted_ids[:total].long()
    valid = s < n
    if int(valid.sum().item()) != n:
        return False
    if not torch.equal(torch.sort(s[valid]).values, torch.arange(n, device=s.device)):
        return False
    owner = expert_ids[:total // BM].long().repeat_interleave(BM)
    return bool(torch.equal(flat[s[valid]], owner[valid]))


def ptx_ops(kernel_fn, dump):
    """Opcode counts of each compiled variant's PTX (the jit's cache), keyed by its constants; the
    PTX itself appended to `dump`."""
    out = {}
    for dev_cache in kernel_fn.device_caches.values():
        cache = dev_cache[0] if isinstance(dev_cache, tuple) else dev_cache
        for key, compiled in cache.items():
            ptx = compiled.asm.get("ptx", "")
            dump.write(f"//// {kernel_fn.__name__} {str(key)[:300]}\n{ptx}\n")
            ops = collections.Counter(m.group(1) for m in re.finditer(r"^\s*(?:@%p\d+\s+)?([a-z][\w.]*)", ptx, re.M)
                                      if not m.group(1).startswith((".", "//")))
            out[str(key)[:300]] = dict(total=sum(ops.values()), ops=dict(ops.most_common(60)),
                                       n_regs=getattr(compiled, "n_regs", None))
    return out


def case(model, E, k, renorm, d, T):
    BM = vmoe.default_config(T, E)["BM"]
    xs = [torch.randn(T, d, device="cuda", dtype=torch.bfloat16) for _ in range(SETS)]
    router = torch.randn(E, d, device="cuda", dtype=torch.bfloat16) * d ** -0.5
    rec = dict(model=model, experts=E, top_k=k, renorm=renorm, tokens=T, block_m=BM, picks=T * k)
    logits = xs[0] @ router.t()
    w, ids = vmoe.topk_softmax(logits, k, renorm)
    rec["topk_error"] = check_topk(logits, w, ids, k, renorm)
    out = vmoe.moe_align_block_size(ids, E, BM)
    rec["align_ok"] = check_align(ids, *out, E, BM)
    rec["ok"] = rec["topk_error"] < 1e-5 and rec["align_ok"]
    if not rec["ok"]:
        return rec

    def step(i):
        lg = xs[i % SETS] @ router.t()
        _, ids = vmoe.topk_softmax(lg, k, renorm)
        vmoe.moe_align_block_size(ids, E, BM)
    for i in range(3):
        step(i)
    torch.cuda.synchronize()
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for i in range(REPS):
            step(i)
        torch.cuda.synchronize()
    per = collections.defaultdict(list)
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            for tag in ("_topk_softmax", "_align_plan", "_align_scatter"):
                if e.name.startswith(tag):
                    per[tag].append(e.time_range.elapsed_us() * 1e-6)
    for tag, v in per.items():
        q = statistics.quantiles(v, n=4) if len(v) >= 4 else [min(v), statistics.median(v), max(v)]
        rec[tag.strip("_") + "_s"] = dict(median=statistics.median(v), q1=q[0], q3=q[2], n=len(v))
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=100.0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    deadline = time.perf_counter() + a.budget
    logf = open(f"{a.out}/run.log", "a")

    def log(s):
        print(s, flush=True)
        logf.write(s + "\n")
        logf.flush()
    harness.init()
    res = dict(meta=dict(harness.device_meta(), torch=torch.__version__,
                         date=datetime.datetime.now(datetime.timezone.utc).isoformat()), routing_cases=[])
    try:
        import triton
        res["meta"]["triton"] = triton.__version__
    except Exception:
        pass
    for model, (E, k, renorm, d) in SHAPES.items():
        for T in TOKENS:
            if time.perf_counter() > deadline:
                log(f"skip {model} T{T}: budget")
                continue
            try:
                r = case(model, E, k, renorm, d, T)
            except Exception as ex:  # noqa: BLE001
                r = dict(model=model, tokens=T, ok=False, error=repr(ex)[:300])
                log(traceback.format_exc()[-800:])
            res["routing_cases"].append(r)
            med = {t: round(r[t]["median"] * 1e6, 2) for t in ("topk_softmax_s", "align_plan_s", "align_scatter_s") if t in r}
            log(f"{model} E{E} k{k} T{T} ok={r.get('ok')} {med}")
            json.dump(res, open(f"{a.out}/hf.json", "w"), indent=1)
    try:
        with open(f"{a.out}/ptx.txt", "w") as dump:
            res["ptx"] = {n: ptx_ops(f, dump) for n, f in (("topk", vmoe._topk_softmax_kernel),
                                                           ("plan", vmoe._align_plan_kernel),
                                                           ("scatter", vmoe._align_scatter_kernel))}
    except Exception as ex:  # noqa: BLE001
        res["ptx_error"] = repr(ex)[:300]
    json.dump(res, open(f"{a.out}/hf.json", "w"), indent=1)
    log("done")


if __name__ == "__main__":
    main()
