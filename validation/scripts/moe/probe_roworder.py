#!/usr/bin/env python3
"""roworder (issue 10; planned 2026-12-07, thirty-ninth session): does the order of an expert's rows inside its row
blocks set the default fused_moe tile's long-K time? A measurement: nothing is priced or fitted on it here.

Why: Mixtral-8x7B's w2 under vLLM's default tile (64 x 64 x 32, K 14336) took 26.1 ms at 16384 routed tokens
(h100-bigncu, h100-tunedbig: CUPTI, this project's align, whose atomic scatter spreads an expert's rows over the whole
input) and 17.5 ms with every expert's rows in ascending order (h100-driftncu, fixed routing from probe_twoblock.py):
priced 17.4 ms, so the price holds the ordered kernel and misses the scattered one by 34 %. The same two sets differ by
15 % at 4096 tokens and 33 % at 8192, and the w13 (K 4096, a 134 MB input against w2's 940 MB) by 3 %. If the rows'
order is the cause, the same routing timed under its own rows sorted within each expert runs as the ordered set did.

Each record: one model, T tokens, one order of the same routed rows, the default config's w13 and w2 kernel times
(CUPTI medians over the weight copies, probe_tuned.time_us), and the largest difference of each GEMM's output from the
align's order (rows are computed alone, so it must be 0):
  - align: vmoe.moe_align_block_size as it writes them (an atomic scatter, the order vLLM's kernel writes);
  - sorted: each expert's rows ascending (the order probe_twoblock.py's plan writes);
  - shuffled: each expert's rows in a random order.

    python3 probe_roworder.py out.jsonl [tokens, comma separated] [models, comma separated]
    ROWORDER_CONFIGS="BM,BN,BK,warps,stages[,GM];...": these configs in place of vLLM's default (roworder3)
    ROWORDER_ONCE=1: each kernel launched once, untimed (under Nsight Compute)
    ROWORDER_SPREAD="1,2,4": the w2 input's rows F apart in a buffer F times its size (a strided view, the same rows,
        indices and output), so the footprint the scattered rows span grows with no other change (roworder4)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))

MODELS = {"mixtral-8x7b": (8, 2, 4096, 14336), "qwen3-30b-a3b": (128, 8, 2048, 768)}
# roworder2 (after the first run: only Mixtral-8x7B's w2 moved): inputs of other sizes and row lengths, to tell the
# input's footprint (Mixtral-8x7B's w2 940 MB at 16384 tokens, 235 at 4096) from its row length (28 KB).
MODELS2 = {"mixtral-8x22b": (8, 2, 6144, 16384), "qwen3-235b-a22b": (128, 8, 4096, 1536),
           "deepseek-v2-lite": (64, 6, 2048, 1408), "mixtral-8x7b": (8, 2, 4096, 14336)}
TOKENS = (4096, 16384)
ORDERS = ("align", "sorted", "shuffled")


def reorder(sorted_ids, ids, E, BM, order, gen):
    """The align's sorted_ids with each expert's valid rows put in `order` (its padding stays at its run's end)."""
    import torch
    if order == "align":
        return sorted_ids
    out = sorted_ids.clone()
    counts = torch.bincount(ids.flatten().long(), minlength=E).tolist()
    start = 0
    for c in counts:
        seg = out[start:start + c]
        if order == "sorted":
            out[start:start + c] = torch.sort(seg).values
        else:
            out[start:start + c] = seg[torch.randperm(c, device=seg.device, generator=gen)]
        start += -(-c // BM) * BM
    return out


def configs(default):
    """vLLM's default config, or ROWORDER_CONFIGS' list (BM,BN,BK,warps,stages[,GM]; ... )."""
    spec = os.environ.get("ROWORDER_CONFIGS")
    if not spec:
        return [default]
    out = []
    for item in spec.split(";"):
        v = [int(x) for x in item.split(",")]
        out.append(dict(BM=v[0], BN=v[1], BK=v[2], num_warps=v[3], num_stages=v[4], GM=v[5] if len(v) > 5 else 1))
    return out


def spreads():
    """ROWORDER_SPREAD's factors (default 1: the input as routed)."""
    return [int(f) for f in os.environ.get("ROWORDER_SPREAD", "1").split(",")]


def time_orders(model, shape, T, inputs, c, copies, gen, out, spread=1):
    """One record per order: the model's w13 and w2 under config c over the same routed rows."""
    import torch

    import probe_tuned
    import vllm_style_moe as vmoe
    E, k, d, I = shape
    x, topw, ids, act = inputs
    dev = x.device
    base_ids, expert_ids, post_pad = vmoe.moe_align_block_size(ids, E, c["BM"])
    ref = {}
    for order in ORDERS:
        sorted_ids = reorder(base_ids, ids, E, c["BM"], order, gen)
        rec = dict(model=model, experts=E, top_k=k, hidden=d, intermediate=I, tokens=T, order=order, BM=c["BM"],
                   BN=c["BN"], BK=c["BK"], GM=c["GM"], warps=c["num_warps"], stages=c["num_stages"],
                   padded_rows=int(post_pad.item()), spread=spread)
        h = torch.empty(T * k, 2 * I, device=dev, dtype=torch.bfloat16)
        y = torch.empty(T * k, d, device=dev, dtype=torch.bfloat16)
        for name, a, o, tk, mul in (("w13", x, h, k, False), ("w2", act, y, 1, True)):
            def launch(w, a=a, o=o, tk=tk, mul=mul):
                vmoe.fused_moe_gemm(a, w, o, topw.flatten().contiguous(), sorted_ids, expert_ids, post_pad, tk, mul, c)
            med, q1, q3 = probe_tuned.time_us([lambda w=wts[name]: launch(w) for wts in reversed(copies)])
            rec[name + "_us"], rec[name + "_q1_us"], rec[name + "_q3_us"] = round(med, 2), round(q1, 2), round(q3, 2)
            got = o.float()
            if name not in ref:
                ref[name] = got.clone()
            rec[name + "_max_diff"] = float((got - ref[name]).abs().max())
        probe_tuned.emit(rec, out)


def main():
    import torch

    import fused_moe_layer
    import probe_tuned
    import vllm_style_moe as vmoe
    out = open(sys.argv[1], "a") if len(sys.argv) > 1 else None
    tokens = tuple(int(t) for t in sys.argv[2].split(",")) if len(sys.argv) > 2 and sys.argv[2] else TOKENS
    models = {m: {**MODELS, **MODELS2}[m] for m in sys.argv[3].split(",")} if len(sys.argv) > 3 else MODELS
    probe_tuned.ONCE = os.environ.get("ROWORDER_ONCE") == "1"
    dev = "cuda"
    gen = torch.Generator(device=dev).manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    print(f"device {props.name} sms {props.multi_processor_count}", flush=True)
    with torch.no_grad():
        for model, (E, k, d, I) in models.items():
            copies = [fused_moe_layer.make_weights(E, d, I, 0, dev, gen) for _ in range(probe_tuned.COPIES)]
            for T in tokens:
                x, topw, ids, act = probe_tuned.routed_inputs(T, E, k, d, I, gen)
                for F in spreads():
                    spread = act
                    if F > 1:  # the same rows, F apart: the kernel reads row r at r x stride(0)
                        spread = torch.zeros(T * k * F, I, device=dev, dtype=act.dtype)[::F]
                        spread.copy_(act)
                    for c in configs(vmoe.default_config(T, E)):
                        time_orders(model, (E, k, d, I), T, (x, topw, ids, spread), c, copies, gen, out, F)
                    del spread
            del copies
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
