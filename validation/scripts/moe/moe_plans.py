"""Named sets of MoE layer points for run_fused2.py's `--plan` (torch-free, so the prices can be written where no GPU
is). MOE_MODELS: run_fused.py's (experts, top-k, hidden, expert FFN width, renormalize, shared-expert FFN width)."""
MOE_MODELS = {"qwen3-30b-a3b": (128, 8, 2048, 768, True, 0),
              "mixtral-8x7b": (8, 2, 4096, 14336, True, 0),
              "deepseek-v2-lite": (64, 6, 2048, 1408, False, 2 * 1408)}
# `--plan moeh100b` (twenty-eighth session): points none of the sets above has, to hold out the half-line stream's
# carry to the H100 (decode past the experts: vLLM's 64 x 64 x 32 tile) and prefills whose compute and stream are
# close; two models new to the sets (models/mixtral-8x22b.yaml, models/qwen3-235b-a22b.yaml). No T = 1, 8, 64 decode:
# fit_fused_moe.py calls those fit points.
PLAN_MODELS = {"moeh100b": dict(MOE_MODELS, **{"mixtral-8x22b": (8, 2, 6144, 16384, True, 0),
                                               "qwen3-235b-a22b": (128, 8, 4096, 1536, True, 0)})}
# `--plan moeh100c` (twenty-ninth session): prefills at token counts no set has, to hold out fused_moe's L2 tile walk
# (l2_tile_rate, fitted on one H200 prefill) across row blocks an expert from 1 to 16, on whichever card comes.
PLAN_MODELS["moeh100c"] = PLAN_MODELS["moeh100b"]
PLAN_TOKENS = {"moeh100b": {
    "mixtral-8x7b": ((12, "decode"), (24, "decode"), (48, "decode"), (96, "decode"), (128, "decode"),
                     (512, "prefill"), (1024, "prefill")),
    "mixtral-8x22b": ((2, "decode"), (16, "decode"), (32, "decode"), (96, "decode"), (1024, "prefill")),
    "qwen3-30b-a3b": ((192, "decode"), (256, "decode"), (512, "prefill"), (1024, "prefill"), (4096, "prefill")),
    "qwen3-235b-a22b": ((4, "decode"), (32, "decode"), (192, "decode"), (1024, "prefill")),
    "deepseek-v2-lite": ((96, "decode"), (256, "decode"), (512, "prefill"), (1024, "prefill"), (4096, "prefill"))}}
PLAN_TOKENS["moeh100c"] = {
    "mixtral-8x7b": ((256, "prefill"), (768, "prefill"), (1536, "prefill"), (3072, "prefill"), (8192, "prefill")),
    "mixtral-8x22b": ((512, "prefill"), (2048, "prefill"), (4096, "prefill")),
    "qwen3-30b-a3b": ((1536, "prefill"), (3072, "prefill"), (8192, "prefill")),
    "qwen3-235b-a22b": ((2048, "prefill"), (4096, "prefill"), (8192, "prefill")),
    "deepseek-v2-lite": ((768, "prefill"), (1536, "prefill"), (3072, "prefill"), (8192, "prefill"))}
# `--plan moeh100d` (twenty-ninth session): one or two padded row blocks an expert (where h100-moeh100b / -moeh100c
# priced the grouped GEMMs 7-32 % fast) and decode past the experts, to decide between fused_moe's L2 tile walk as the
# larger of the stream and the tile loads (committed) and the two joined as a 3-norm (moeh100d/pnorm3.calibration.yaml).
PLAN_MODELS["moeh100d"] = PLAN_MODELS["moeh100b"]
PLAN_TOKENS["moeh100d"] = {
    "mixtral-8x7b": ((40, "decode"), (80, "decode"), (384, "prefill"), (640, "prefill")),
    "mixtral-8x22b": ((64, "decode"), (256, "prefill"), (384, "prefill"), (768, "prefill")),
    "qwen3-30b-a3b": ((160, "decode"), (768, "prefill"), (1280, "prefill"), (2560, "prefill")),
    "qwen3-235b-a22b": ((256, "decode"), (512, "prefill"), (1536, "prefill"), (3072, "prefill")),
    "deepseek-v2-lite": ((160, "decode"), (384, "prefill"), (640, "prefill"), (1280, "prefill"), (2560, "prefill"))}
# `--plan moeh100e` (twenty-ninth session): moeh100d's question again with the 3-norm of the weight stream alone (not
# the K-loops' floor) and the real tile loads (moeh100e/pnorm3s.calibration.yaml), at points no set has: one or two row
# blocks an expert, many blocks, and decode past the experts.
PLAN_MODELS["moeh100e"] = PLAN_MODELS["moeh100b"]
PLAN_TOKENS["moeh100e"] = {
    "mixtral-8x7b": ((56, "decode"), (320, "prefill"), (448, "prefill"), (896, "prefill"), (4096, "prefill")),
    "mixtral-8x22b": ((48, "decode"), (320, "prefill"), (640, "prefill"), (1536, "prefill")),
    "qwen3-30b-a3b": ((224, "decode"), (640, "prefill"), (1792, "prefill"), (6144, "prefill")),
    "qwen3-235b-a22b": ((160, "decode"), (768, "prefill"), (1280, "prefill"), (6144, "prefill")),
    "deepseek-v2-lite": ((192, "decode"), (448, "prefill"), (896, "prefill"), (1792, "prefill"), (6144, "prefill"))}
# `--plan lagcheck` (thirtieth session): the partner lag (fused_moe_cost.cpp, kPartnerLeadShare, fitted on h200-twoblock's
# fixed routing alone) held out on routed layers at 1.1-2.8 padded row blocks an expert, where an expert's last block is
# part-filled: picks an expert T k / E = 68-176 (Mixtral), 72-144 (Qwen3-235B, Qwen3-30B), 72-120 (DeepSeek-V2-Lite).
PLAN_MODELS["lagcheck"] = PLAN_MODELS["moeh100b"]
PLAN_TOKENS["lagcheck"] = {
    "mixtral-8x7b": ((272, "prefill"), (352, "prefill"), (416, "prefill"), (480, "prefill"), (544, "prefill"),
                     (704, "prefill")),
    "mixtral-8x22b": ((288, "prefill"), (352, "prefill"), (416, "prefill"), (576, "prefill")),
    "qwen3-235b-a22b": ((1152, "prefill"), (1408, "prefill"), (1664, "prefill"), (2304, "prefill")),
    "qwen3-30b-a3b": ((1152, "prefill"), (1408, "prefill"), (1664, "prefill")),
    "deepseek-v2-lite": ((768, "prefill"), (1024, "prefill"), (1280, "prefill"))}
# `--plan straddle` (thirty-fourth session): GROUP_SIZE_M's straddle (fused_moe_cost.cpp, straddle_reread_bytes: an
# expert whose row blocks fall in two of the kernel's groups of eight streams its weights in each), held out at token
# counts no set has, 1.2-3 padded row blocks an expert where the straddle moves the price (+1 to +6 %: Mixtral-8x7B,
# -8x22B, Qwen3-235B-A22B, whose experts' weights outgrow the L2), and one point each of Qwen3-30B and DeepSeek-V2-Lite
# (small experts: a group's weights stay in the L2, the price does not move) and Qwen3-235B at 2500 (the L2 walk binds).
PLAN_MODELS["straddle"] = PLAN_MODELS["moeh100b"]
PLAN_TOKENS["straddle"] = {
    "mixtral-8x7b": ((300, "prefill"), (460, "prefill"), (560, "prefill"), (660, "prefill"), (740, "prefill")),
    "mixtral-8x22b": ((300, "prefill"), (440, "prefill"), (540, "prefill"), (700, "prefill")),
    "qwen3-235b-a22b": ((1760, "prefill"), (1920, "prefill"), (2500, "prefill")),
    "qwen3-30b-a3b": ((2200, "prefill"),),
    "deepseek-v2-lite": ((1500, "prefill"),)}
# `--plan smalltile` (thirty-fourth session): vLLM's small default tile (16 x 32 x 64, while the tokens are at most the
# experts) at decode points no set has, where its CTAs an SM move the price (more tiles than 12 an SM hold): the price
# holds 16 a SM (the count cta_rate was fitted with), Nsight read 12 (h100-tunedmoe). Priced both ways before the run.
PLAN_MODELS["smalltile"] = PLAN_MODELS["moeh100b"]
PLAN_TOKENS["smalltile"] = {
    "mixtral-8x7b": ((3, "decode"), (6, "decode")),
    "mixtral-8x22b": ((3, "decode"), (6, "decode")),
    "qwen3-235b-a22b": ((12, "decode"), (20, "decode"), (48, "decode"), (80, "decode"), (112, "decode")),
    "qwen3-30b-a3b": ((12, "decode"), (20, "decode"), (48, "decode"), (80, "decode"), (112, "decode")),
    "deepseek-v2-lite": ((12, "decode"), (24, "decode"), (40, "decode"))}
# `--plan moecheck34` (thirty-fourth session): a held-out check of the fused profile's MoE prices after that session's
# changes (GROUP_SIZE_M's straddle; the tuned tiles' buffer count does not touch the default), at points no set has:
# two decodes and two prefills a model.
PLAN_MODELS["moecheck34"] = PLAN_MODELS["moeh100b"]
PLAN_TOKENS["moecheck34"] = {
    "mixtral-8x7b": ((10, "decode"), (20, "decode"), (1000, "prefill"), (2500, "prefill")),
    "mixtral-8x22b": ((10, "decode"), (24, "decode"), (800, "prefill"), (3000, "prefill")),
    "qwen3-235b-a22b": ((36, "decode"), (144, "decode"), (1200, "prefill"), (4500, "prefill")),
    "qwen3-30b-a3b": ((28, "decode"), (176, "decode"), (900, "prefill"), (7000, "prefill")),
    "deepseek-v2-lite": ((20, "decode"), (112, "decode"), (1100, "prefill"), (5000, "prefill"))}
