#!/usr/bin/env python3
"""vLLM's tuned fused_moe configs against its default one (issue 10: the truth is what users run). A measurement:
nothing is priced or fitted on it here.

Why: vLLM reads a tuned config per (E, N, device) from vllm/model_executor/layers/fused_moe/configs/
(`E=<experts>,N=<intermediate per partition>,device_name=<torch.cuda.get_device_name, spaces as _>.json`) and takes
the entry whose key is nearest the tokens (try_get_optimal_moe_config); only without a file does it fall back to
get_default_config (16 x 32 x 64 while tokens <= experts, 64 x 64 x 32 beyond), the config every fused_moe set of this
project ran and the fused profile prices. vLLM ships such files for Mixtral-8x7B (E=8, N=14336) and Qwen3-30B-A3B
(E=128, N=768) on the H200 and H100, so a vLLM user there runs the tuned tiles: BLOCK_K 128-256 at decode (full
128-byte lines, where the default's BLOCK_K 32 loads half lines), 128 x 256 x 64 at prefill.

hardware/vllm-fused-moe holds vLLM's files' entries (vLLM main, 2025-2026; values only).
Each grouped GEMM (w13, w2) of one MoE layer at uniform random routing is timed under the default config and under
the tuned entry nearest the tokens: the kernel's device time (torch.profiler), median of 16 launches over 4 weight
copies in turn (time_us says why), outputs compared between the two.

    python3 probe_tuned.py [--h100-files] out.jsonl [tokens, comma separated: a subset of TOKENS for a short lease]
                                     [models, comma separated: MODELS' or CHECK_MODELS' names; MODELS' two by default]
    --h100-files: each model runs vLLM's H100 file (H100_FILES) instead of its H200 one
    --auto-files: AUTO_LAYOUTS (one GPU's share under tensor parallelism), each under vLLM's file for this GPU
    ncu ... python3 probe_tuned.py --once /dev/null 1,16,64,256,2048   # one launch a kernel, for Nsight Compute's
                                                                        # occupancy limits (read_tuned.py --ncu)
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


CONFIGS = os.path.join(HERE, "..", "..", "..", "hardware", "vllm-fused-moe")


def load_tuned(name):
    """A vLLM tuned file (hardware/vllm-fused-moe: vLLM's entries, values only) -> {tokens: cfg}."""
    with open(os.path.join(CONFIGS, name)) as f:
        raw = json.load(f)
    return {int(k): dict(BM=v["BLOCK_SIZE_M"], BN=v["BLOCK_SIZE_N"], BK=v["BLOCK_SIZE_K"], GM=v["GROUP_SIZE_M"],
                         num_warps=v["num_warps"], num_stages=v["num_stages"]) for k, v in raw.items()
            if k != "triton_version"}  # vLLM's tuner stamps newer files with it; get_moe_configs drops it


# (experts, top_k, hidden, intermediate, tuned file): Mixtral-8x7B and Qwen3-30B-A3B at TP 1 on the H200
MODELS = {"mixtral-8x7b": (8, 2, 4096, 14336, "E=8,N=14336,device_name=NVIDIA_H200.json"),
          "qwen3-30b-a3b": (128, 8, 2048, 768, "E=128,N=768,device_name=NVIDIA_H200.json")}
# tunedcheck (thirty-fourth session): the same files' tiles on models they were not tuned for (vLLM would run these
# only with a file of their own; here they test the pricing of a tile on new shapes): Mixtral-8x22B on Mixtral-8x7B's
# file, Qwen3-235B-A22B and DeepSeek-V2-Lite (routed experts only) on Qwen3-30B-A3B's.
# tunedh100 (thirty-fourth session): vLLM's own H100 files for three models, what a vLLM user on an H100 runs.
H100_FILES = {"qwen3-30b-a3b": "E=128,N=768,device_name=NVIDIA_H100_80GB_HBM3.json",
              "mixtral-8x7b": "E=8,N=14336,device_name=NVIDIA_H100_80GB_HBM3.json",
              "deepseek-v2-lite": "E=64,N=1408,device_name=NVIDIA_H100_80GB_HBM3.json"}
CHECK_MODELS = {"mixtral-8x22b": (8, 2, 6144, 16384, "E=8,N=14336,device_name=NVIDIA_H200.json"),
                "qwen3-235b-a22b": (128, 8, 4096, 1536, "E=128,N=768,device_name=NVIDIA_H200.json"),
                "deepseek-v2-lite": (64, 6, 2048, 1408, "E=128,N=768,device_name=NVIDIA_H200.json")}
# autocheck (thirty-sixth session): layouts whose vLLM file `perfmodel --moe-config auto` now takes and no set here has
# measured: one GPU's share under tensor parallelism (experts whole, each expert's intermediate / tp), with the file
# vLLM ships for the GPU in hand (E=..,N=<intermediate / tp>,device_name=<this GPU>.json, hardware/vllm-fused-moe).
AUTO_LAYOUTS = {"mixtral-8x7b-tp2": (8, 2, 4096, 7168), "mixtral-8x7b-tp4": (8, 2, 4096, 3584),
                "mixtral-8x22b-tp4": (8, 2, 6144, 4096), "qwen3-30b-a3b-tp2": (128, 8, 2048, 384),
                "qwen3-235b-a22b-tp8": (128, 8, 4096, 192),
                # autocheck2 (thirty-eighth session): layouts whose files ship for both cards, never measured
                "mixtral-8x7b-tp8": (8, 2, 4096, 1792), "mixtral-8x22b-tp8": (8, 2, 6144, 2048),
                "qwen3-235b-a22b-tp2": (128, 8, 4096, 768)}
TOKENS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048)


def nearest(table, T):
    """vLLM's try_get_optimal_moe_config: the entry whose key is nearest the tokens (ties to the first)."""
    return table[min(table, key=lambda m: abs(m - T))]


ONCE = False  # --once: each kernel launched once (under Nsight Compute), no timing
COPIES = 4    # weight copies (layers) the timed launches rotate over, so no launch finds its weights in the L2
ROUNDS = 4    # timed rounds over the copies


def time_us(launches):
    """Each launch's kernel time on the device (torch.profiler's CUPTI records): median, q1, q3 over ROUNDS rounds of
    the copies in turn. Kernel time, not CUDA events around a launch: the first run (2026-12-07, h100-tunedmoe/
    first-run) timed each Python launch between events and so counted Triton's host launch (~40-60 us), which
    dominated every small kernel. Rotating the copies keeps consecutive launches from reading the same expert weights
    out of the L2 (a decode step's next MoE layer reads other weights)."""
    if ONCE:
        launches[0]()
        torch.cuda.synchronize()
        return 0.0, 0.0, 0.0
    from torch.profiler import ProfilerActivity, profile
    for launch in launches:
        launch()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(ROUNDS):
            for launch in launches:
                launch()
        torch.cuda.synchronize()
    times = sorted(e.time_range.elapsed_us() for e in prof.events()
                   if e.device_type == torch.autograd.DeviceType.CUDA and "_fused_moe_gemm" in e.name)
    if len(times) != ROUNDS * len(launches):
        raise RuntimeError(f"expected {ROUNDS * len(launches)} kernel records, profiler gave {len(times)}")
    return times[len(times) // 2], times[len(times) // 4], times[3 * len(times) // 4]


def routed_inputs(T, E, k, d, I, gen):
    """T tokens' activations [T, d], top-k routing of random logits over E experts (weights [T, k], ids [T, k] int32)
    and the w2 input [T k, I], bf16 on gen's device."""
    dev = gen.device
    x = torch.randn(T, d, device=dev, dtype=torch.bfloat16, generator=gen)
    logits = torch.randn(T, E, device=dev, dtype=torch.float32, generator=gen)
    topw, ids = torch.topk(torch.softmax(logits, -1), k, dim=-1)
    act = torch.randn(T * k, I, device=dev, dtype=torch.bfloat16, generator=gen)
    return x, topw, ids.to(torch.int32).contiguous(), act


def emit(rec, out):
    """A record to stdout and, where given, the results file (flushed: a run cut short keeps what it measured)."""
    print(json.dumps(rec), flush=True)
    if out:
        out.write(json.dumps(rec) + "\n")
        out.flush()


def time_layer(x, act, topw, ids, c, copies, rec):
    """One MoE layer's w13 and w2 under config c, each timed over the weight copies (time_us): rec takes the padded
    rows and <gemm>_us / _q1_us / _q3_us; returns each GEMM's output (fp32) from copy 0's launch, the last one run."""
    T, k = ids.shape
    E, I = copies[0]["w13"].shape[0], copies[0]["w2"].shape[2]
    sorted_ids, expert_ids, post_pad = vmoe.moe_align_block_size(ids, E, c["BM"])
    h = torch.empty(T * k, 2 * I, device=x.device, dtype=torch.bfloat16)
    y = torch.empty(T * k, x.shape[1], device=x.device, dtype=torch.bfloat16)
    rec["padded_rows"] = int(post_pad.item())
    outs = {}
    for name, a, o, tk, mul in (("w13", x, h, k, False), ("w2", act, y, 1, True)):
        def launch(w):
            vmoe.fused_moe_gemm(a, w, o, topw.flatten().contiguous(), sorted_ids, expert_ids, post_pad, tk, mul, c)
        med, q1, q3 = time_us([lambda w=wts[name]: launch(w) for wts in reversed(copies)])
        rec[name + "_us"], rec[name + "_q1_us"], rec[name + "_q3_us"] = round(med, 2), round(q1, 2), round(q3, 2)
        outs[name] = o.float().clone()
    return outs


def main():
    global ONCE
    if len(sys.argv) > 1 and sys.argv[1] == "--once":
        ONCE = True
        del sys.argv[1]
    h100_files = len(sys.argv) > 1 and sys.argv[1] == "--h100-files"
    if h100_files:
        del sys.argv[1]
    auto_files = len(sys.argv) > 1 and sys.argv[1] == "--auto-files"
    if auto_files:
        del sys.argv[1]
    out = open(sys.argv[1], "a") if len(sys.argv) > 1 else None
    tokens = tuple(int(t) for t in sys.argv[2].split(",")) if len(sys.argv) > 2 and sys.argv[2] else TOKENS
    every = {**MODELS, **CHECK_MODELS}
    if auto_files:
        device = torch.cuda.get_device_name(0).replace(" ", "_")  # vLLM's device_name
        every = {m: (E, k, d, I, f"E={E},N={I},device_name={device}.json") for m, (E, k, d, I) in AUTO_LAYOUTS.items()}
        for m, v in every.items():
            if not os.path.exists(os.path.join(CONFIGS, v[4])):
                raise SystemExit(f"{m}: no {v[4]} in {CONFIGS}")
    models = {m: every[m] for m in sys.argv[3].split(",")} if len(sys.argv) > 3 else (every if auto_files else MODELS)
    if h100_files:
        models = {m: v[:4] + (H100_FILES[m],) for m, v in models.items()}
    dev = "cuda"
    gen = torch.Generator(device=dev).manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    print(f"device {props.name} sms {props.multi_processor_count}", flush=True)
    with torch.no_grad():
        for model, (E, k, d, I, fname) in models.items():
            table = load_tuned(fname)
            copies = [fused_moe_layer.make_weights(E, d, I, 0, dev, gen) for _ in range(1 if ONCE else COPIES)]
            for T in tokens:
                x, topw, ids, act = routed_inputs(T, E, k, d, I, gen)
                outs = {}
                for which, c in (("default", vmoe.default_config(T, E)), ("tuned", nearest(table, T))):
                    rec = dict(model=model, experts=E, top_k=k, hidden=d, intermediate=I, tokens=T, config=which,
                               BM=c["BM"], BN=c["BN"], BK=c["BK"], GM=c["GM"], warps=c["num_warps"],
                               stages=c["num_stages"], file=fname)
                    for name, o in time_layer(x, act, topw, ids, c, copies, rec).items():
                        outs[(which, name)] = o
                    if which == "tuned":
                        for name in ("w13", "w2"):
                            ref, got = outs[("default", name)], outs[("tuned", name)]
                            rec[name + "_rel_diff"] = float((got - ref).abs().max() / ref.abs().max().clamp_min(1e-6))
                        rec["correct"] = all(rec[n + "_rel_diff"] < 2e-2 for n in ("w13", "w2"))
                    emit(rec, out)
            del copies
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
