#!/usr/bin/env python3
"""stagesweep (issue 10; planned 2026-12-07): one fused_moe GEMM under tiles, warps and pipeline stages that vLLM's
H100 files mix at prefill, on the same routed rows, so what a tile costs can be read apart from what the shape costs.
A measurement: nothing is priced or fitted on it here (read_stages.py prices it with the prices committed first).

Why: the price misses two kinds of vLLM's tuned prefill entries on the H100: the 2-stage BLOCK_K 128 tiles
(DeepSeek-V2-Lite's 4096-token 128 x 256 x 128 s2 -34 %, its 24576-token 256 x 128 x 128 s2 -26 %) and the short-K
w2 of the 128 x 256 x 64 s4 tile (Qwen3-30B's K 768, -15 to -29 %); h100-tunedncu read a tile's SM cycles as a fixed
part plus a K-linear one. Here the same GEMMs run under every config of CONFIGS, so a stage count, a BLOCK_K or a
second CTA an SM is the only change between two records.

    python3 probe_stages.py [--check] out.jsonl [tokens, comma separated] [models, comma separated]
    --check: CHECK_MODELS at CHECK_TOKENS (stagecheck)
    --gm: GM_CONFIGS on GM_MODELS at GM_TOKENS (gmcheck)
    --check2: CHECK2_MODELS at CHECK2_TOKENS (stagecheck2)
    --queue: QUEUE_CONFIGS on QUEUE_MODELS at QUEUE_TOKENS (queuecheck)

Each record: the model's w13 and w2 kernel times (CUPTI, median of 4 rounds over 4 weight copies, probe_tuned.time_us)
under one config, and the largest difference from the default config's output.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))

# (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages), GROUP_SIZE_M 1 (vLLM's H100 prefill entries for these models)
CONFIGS = ((128, 256, 64, 8, 4), (128, 256, 64, 8, 3), (128, 256, 64, 8, 2), (128, 256, 128, 8, 2),
           (256, 128, 128, 8, 2), (128, 128, 64, 8, 3), (128, 128, 64, 4, 4), (64, 256, 64, 8, 5))
MODELS = {"qwen3-30b-a3b": (128, 8, 2048, 768), "deepseek-v2-lite": (64, 6, 2048, 1408)}
TOKENS = (4096, 16384)
# stagecheck (planned after stagesweep's reading): the same configs on models stagesweep did not run, long K among
# them (Mixtral-8x7B's w2 K 14336, Qwen3-235B-A22B's w13 K 4096), at other lengths; prices committed before the run.
CHECK_MODELS = {"mixtral-8x7b": (8, 2, 4096, 14336), "qwen3-235b-a22b": (128, 8, 4096, 1536)}
CHECK_TOKENS = (2048, 8192)
# gmcheck (planned after stagecheck): GROUP_SIZE_M's straddle re-reads at full lines, which the price took on after
# stagecheck's Mixtral w13 at GROUP_SIZE_M 1; one tile, GROUP_SIZE_M 1-32, experts past the L2 and within it.
GM_CONFIGS = tuple((128, 256, 64, 8, 4, gm) for gm in (1, 2, 4, 8, 32))
GM_MODELS = {"mixtral-8x7b": (8, 2, 4096, 14336), "mixtral-8x22b": (8, 2, 6144, 16384),
             "qwen3-235b-a22b": (128, 8, 4096, 1536)}
GM_TOKENS = (4096,)
# stagecheck2 (planned after h200-stagesweep): the three choices made after seeing their data (the load rate's 1.1, the
# straddle's row-block group, the rate held as the SM's) held out together: new model, new lengths.
CHECK2_MODELS = {"mixtral-8x22b": (8, 2, 6144, 16384), "qwen3-235b-a22b": (128, 8, 4096, 1536)}
CHECK2_TOKENS = (1024, 4096)
# queuecheck (planned 2026-12-07, thirty-eighth session, after the full-line loads became a queue: rate x n / (n + 1),
# n = resident CTAs x (stages - 1)): tiles no stage set ran, n from 1 to 6 by stages and by CTAs an SM, BLOCK_K 64 and
# 128, on two models at lengths the stage sets did not run.
QUEUE_CONFIGS = ((64, 128, 64, 4, 3), (64, 128, 128, 4, 2), (128, 128, 128, 8, 2), (64, 64, 128, 4, 4),
                 (128, 64, 64, 4, 4), (256, 128, 64, 8, 3), (64, 256, 128, 8, 2), (32, 128, 128, 4, 3))
QUEUE_MODELS = {"deepseek-v2-lite": (64, 6, 2048, 1408), "mixtral-8x7b": (8, 2, 4096, 14336)}
QUEUE_TOKENS = (2048, 8192)


def main():
    import torch  # here, not at the top: read_stages.py imports the constants on a machine without torch

    import fused_moe_layer
    import probe_tuned
    import vllm_style_moe as vmoe
    mode = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] in ("--check", "--gm", "--check2", "--queue") else None
    if mode:
        del sys.argv[1]
    every, default_tokens, configs = {"--check": (CHECK_MODELS, CHECK_TOKENS, CONFIGS),
                                      "--gm": (GM_MODELS, GM_TOKENS, GM_CONFIGS),
                                      "--check2": (CHECK2_MODELS, CHECK2_TOKENS, CONFIGS),
                                      "--queue": (QUEUE_MODELS, QUEUE_TOKENS, QUEUE_CONFIGS)}.get(mode, (MODELS, TOKENS, CONFIGS))
    out = open(sys.argv[1], "a") if len(sys.argv) > 1 else None
    tokens = tuple(int(t) for t in sys.argv[2].split(",")) if len(sys.argv) > 2 and sys.argv[2] else default_tokens
    models = {m: every[m] for m in sys.argv[3].split(",")} if len(sys.argv) > 3 else every
    dev = "cuda"
    gen = torch.Generator(device=dev).manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    print(f"device {props.name} sms {props.multi_processor_count}", flush=True)
    with torch.no_grad():
        for model, (E, k, d, I) in models.items():
            copies = [fused_moe_layer.make_weights(E, d, I, 0, dev, gen) for _ in range(probe_tuned.COPIES)]
            for T in tokens:
                x, topw, ids, act = probe_tuned.routed_inputs(T, E, k, d, I, gen)
                ref = {}
                for c in [vmoe.default_config(T, E)] + [dict(BM=cf[0], BN=cf[1], BK=cf[2], num_warps=cf[3],
                                                             num_stages=cf[4], GM=cf[5] if len(cf) > 5 else 1)
                                                        for cf in configs]:
                    rec = dict(model=model, experts=E, top_k=k, hidden=d, intermediate=I, tokens=T,
                               config="default" if not ref else "sweep", BM=c["BM"], BN=c["BN"], BK=c["BK"],
                               GM=c["GM"], warps=c["num_warps"], stages=c["num_stages"])
                    try:
                        for name, o in probe_tuned.time_layer(x, act, topw, ids, c, copies, rec).items():
                            if name not in ref:
                                ref[name] = o
                            else:
                                rec[name + "_rel_diff"] = float((o - ref[name]).abs().max() /
                                                                ref[name].abs().max().clamp_min(1e-6))
                    except Exception as e:  # a config Triton cannot place (shared memory): recorded, not fatal
                        rec["error"] = str(e).splitlines()[0][:200]
                    probe_tuned.emit(rec, out)
            del copies
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
