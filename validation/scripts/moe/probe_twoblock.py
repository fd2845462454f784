#!/usr/bin/env python3
"""Why vLLM-style fused_moe runs slowest at about two padded row blocks an expert (h100-moeh100d / -e: Mixtral-8x7B
at 320 tokens 2173 us, at 448 tokens 1818 us, both 16 row blocks; Mixtral-8x7B / -8x22B at 1.4-2 blocks an expert
15-27 % slower than priced). A diagnosis: nothing is priced or fitted on it.

The hypothesis under test (the lag of an expert's partner CTAs): under GROUP_SIZE_M 8 the CTAs of one expert's row
blocks at one column tile run side by side and read the same weight tile. vLLM's align fills an expert's rows from its
first block, so the last block holds only the remainder (16 of 64 rows at Mixtral-8x7B's 320 tokens, 48 at 448).
The CTA with fewer real rows loads fewer A rows each K step, runs ahead through K, and its partner reads the weight
slices later; once the lag passes the time a line stays in the L2, the partner re-reads them from DRAM.

Its signature, set down before the run:
  - with routing fixed to c picks an expert (two blocks, the second with c - 64 real rows), the GEMMs' time FALLS as
    the second block fills (c 65 -> 128), where the tile-walk model prices it flat or rising;
  - the same picks laid out EVEN (an expert's real rows split equally over its blocks, sentinels at each block's end)
    run faster than vLLM's FRONT layout at small remainders, and alike at c = 128;
  - under Nsight Compute the FRONT layout's DRAM bytes over the weights rise above 1.0x as the remainder shrinks.
If the FRONT and EVEN layouts time alike, the lag is not the mechanism.

    python3 probe_twoblock.py time [out.jsonl]     # CUDA-event medians of each GEMM, both layouts
    ncu ... python3 probe_twoblock.py ncu          # each GEMM launched once per case, `case ...` printed before it
    PROBE_PICKS='{"mixtral-8x7b": [512, 1024]}' python3 probe_twoblock.py ...   # other picks an expert (driftncu)
    PROBE_GM=64 PROBE_LAYOUTS=front python3 probe_twoblock.py ...                # another GROUP_SIZE_M, one layout
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402

import fused_moe_layer  # noqa: E402
import vllm_style_moe as vmoe  # noqa: E402

BM = 64
MODELS = {"mixtral-8x7b": (8, 2, 4096, 14336), "mixtral-8x22b": (8, 2, 6144, 16384)}
# picks an expert: one block (32, 64), two blocks with 1-64 rows in the second (65-128), three (136, 160, 192)
PICKS = {"mixtral-8x7b": (32, 64, 65, 68, 72, 80, 88, 96, 104, 112, 120, 128, 136, 160, 192),
         "mixtral-8x22b": (64, 72, 80, 96, 112, 128, 160)}
NCU_PICKS = {"mixtral-8x7b": (64, 68, 80, 96, 112, 128, 160), "mixtral-8x22b": (72, 112)}


def plan(E, k, c, layout, dev, gen):
    """ids [T, k] with exactly c picks an expert (T = E c / k), and the aligned (sorted_ids, expert_ids, post_pad)
    as vLLM's align writes them (FRONT) or with each expert's real rows split evenly over its blocks (EVEN). The
    buffer is sized as vLLM sizes it (n + E (BM - 1)), so the grid holds the same early-exit CTAs."""
    T = E * c // k
    n = T * k
    picks = torch.arange(E, device=dev, dtype=torch.int32).repeat_interleave(c)
    picks = picks[torch.randperm(n, device=dev, generator=gen)]
    ids = picks.view(T, k)
    blocks = -(-c // BM)
    max_len = n + E * (BM - 1)
    sorted_ids = torch.full((max_len,), n, device=dev, dtype=torch.int32)
    expert_ids = torch.zeros(-(-max_len // BM), device=dev, dtype=torch.int32)
    flat = ids.flatten()
    for e in range(E):
        rows = torch.nonzero(flat == e).flatten().to(torch.int32)
        base = e * blocks * BM
        if layout == "front":
            sorted_ids[base:base + c] = rows
        else:
            share = [c // blocks + (1 if b < c % blocks else 0) for b in range(blocks)]
            at = 0
            for b, s in enumerate(share):
                sorted_ids[base + b * BM: base + b * BM + s] = rows[at:at + s]
                at += s
        expert_ids[e * blocks:(e + 1) * blocks] = e
    post_pad = torch.tensor([E * blocks * BM], device=dev, dtype=torch.int32)
    assert int((sorted_ids < n).sum()) == n and int(torch.unique(sorted_ids[sorted_ids < n]).numel()) == n
    return T, ids, sorted_ids, expert_ids, post_pad


def cases(picks_by_model, layouts):
    for model, picks in picks_by_model.items():
        for c in picks:
            for layout in (layouts if c % BM else ("front",)):
                yield model, c, layout


def main():
    mode = sys.argv[1]
    out = open(sys.argv[2], "a") if len(sys.argv) > 2 else None
    dev = "cuda"
    gen = torch.Generator(device=dev).manual_seed(0)
    cfg = vmoe.default_config(10 ** 6, 8)
    if os.environ.get("PROBE_GM"):  # groupncu (thirty-fifth session): the default tile under another GROUP_SIZE_M
        cfg = dict(cfg, GM=int(os.environ["PROBE_GM"]))
    layouts = tuple(os.environ.get("PROBE_LAYOUTS", "front,even").split(","))
    by_model = PICKS if mode == "time" else NCU_PICKS
    if os.environ.get("PROBE_PICKS"):  # driftncu (thirty-fourth session): many full blocks an expert
        by_model = {m: tuple(c) for m, c in json.loads(os.environ["PROBE_PICKS"]).items()}
    props = torch.cuda.get_device_properties(0)
    print(f"device {props.name} sms {props.multi_processor_count}", flush=True)
    with torch.no_grad():
        for model in by_model:
            E, k, d, I = MODELS[model]
            wts = fused_moe_layer.make_weights(E, d, I, 0, dev, gen)
            for m, c, layout in cases({model: by_model[model]}, layouts):
                T, ids, sorted_ids, expert_ids, post_pad = plan(E, k, c, layout, dev, gen)
                x = torch.randn(T, d, device=dev, dtype=torch.bfloat16, generator=gen)
                act = torch.randn(T * k, I, device=dev, dtype=torch.bfloat16, generator=gen)
                topw = torch.rand(T, k, device=dev, dtype=torch.float32, generator=gen)
                h = torch.empty(T * k, 2 * I, device=dev, dtype=torch.bfloat16)
                y = torch.empty(T * k, d, device=dev, dtype=torch.bfloat16)
                rec = dict(model=model, picks_per_expert=c, tokens=T, layout=layout, blocks=-(-c // BM) * E,
                           group_m=cfg["GM"])
                for name, a, w, o, tk, mul in (("w13", x, wts["w13"], h, k, False), ("w2", act, wts["w2"], y, 1, True)):
                    def launch():
                        vmoe.fused_moe_gemm(a, w, o, topw, sorted_ids, expert_ids, post_pad, tk, mul, cfg)
                    if mode == "ncu":
                        launch()  # compiles outside the profiled launch's timing; ncu profiles both
                        torch.cuda.synchronize()
                        print(f"case {model} c={c} T={T} {layout} {name}", flush=True)
                        launch()
                        torch.cuda.synchronize()
                        continue
                    for _ in range(3):
                        launch()
                    times = []
                    for _ in range(15):
                        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                        s.record()
                        launch()
                        e.record()
                        e.synchronize()
                        times.append(s.elapsed_time(e) * 1e-3)
                    times.sort()
                    rec[name + "_us"] = round(times[len(times) // 2] * 1e6, 1)
                    rec[name + "_q1_us"] = round(times[len(times) // 4] * 1e6, 1)
                    rec[name + "_q3_us"] = round(times[3 * len(times) // 4] * 1e6, 1)
                if mode == "time":
                    print(json.dumps(rec), flush=True)
                    if out:
                        out.write(json.dumps(rec) + "\n")
                        out.flush()
            del wts
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
