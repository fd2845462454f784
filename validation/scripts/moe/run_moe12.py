#!/usr/bin/env python3
"""h200-moe12: torch._grouped_mm's partial pairs (issue 11): which stage waits. One call.

    python3 validation/scripts/moe/run_moe12.py OUT_DIR [--budget S]        # timings (hf.json)
    ncu ... python3 validation/scripts/moe/run_moe12.py OUT_DIR --probe      # one launch a case

moe9 / moe11 left the one-pair penalty (r = 8 against r = 128 per K step of a CTA tile) at 1.3 on
Mixtral's gate_up (8 x N 28672 x K 4096) and none on Qwen3's (128 x N 1536 x K 2048); the weight's
rows are read with a power-of-two stride (K x 2 bytes) by 66 clusters at once. Hypotheses, with
predictions stated before the run (r8 / r128 of the whole op; run_moe7.counts_case: equal rows,
checked against fp32, CUDA graph over rotating inputs, median of >= 10 samples):
  (S) stride: the power-of-two row stride puts the wave's B reads on few DRAM banks / L2 sets.
      Predicted: Mixtral with rows padded to K + 64 (8320 B, not a power of two) falls to <= 1.10.
  (P) span / TLB / DRAM pages: a wave's B reads cover 66 x 128 rows x stride (Mixtral 69 MB,
      Qwen3 35 MB). Predicted: Qwen3 with its rows 16 KB apart (the K 2048 slice of K 8192 rows,
      138 MB a wave) >= 1.15; padding by 64 changes nothing.
  (C) the cluster's partner: the penalty is the partner CTA's empty M tile (it still multicasts
      half of B and waits). Predicted: Mixtral r72 (the partner has 8 rows) within 5 % of r128.
  If none holds, the penalty lies in the shape (N tiles an expert), not in the addresses.
--probe: one launch each of Mixtral r8 / r128 / padded r8 and Qwen3 r8 / r128 / 16 KB r8, for
Nsight Compute (DRAM bytes, L2 hit rate, warp stall reasons).
"""
import argparse
import datetime
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, os.path.join(HERE, "..", "quant"))
import torch  # noqa: E402

# (label, experts, N, K, row stride in elements, rows an expert)
CASES = (("mixtral_gate_up", 8, 28672, 4096, 4096, (8, 128, 72)),
         ("mixtral_gate_up_pad64", 8, 28672, 4096, 4160, (8, 128)),
         ("qwen3_gate_up", 128, 1536, 2048, 2048, (8, 128)),
         ("qwen3_gate_up_s8192", 128, 1536, 2048, 8192, (8, 128)),
         ("qwen3_gate_up_pad64", 128, 1536, 2048, 2112, (8, 128)))
PROBE = (("mixtral_gate_up", 8), ("mixtral_gate_up", 128), ("mixtral_gate_up_pad64", 8),
         ("qwen3_gate_up", 8), ("qwen3_gate_up", 128), ("qwen3_gate_up_s8192", 8))


def weight(E, N, K, stride):
    """[E, N, K] bf16 whose rows lie `stride` elements apart (a slice of a wider tensor)."""
    w = torch.randn(E, N, stride, device="cuda", dtype=torch.bfloat16) * K ** -0.5
    return w[:, :, :K]


def probe():
    spec = {c[0]: c for c in CASES}
    for label, r in PROBE:
        _, E, N, K, stride, _ = spec[label]
        w = weight(E, N, K, stride)
        x = torch.randn(E * r, K, device="cuda", dtype=torch.bfloat16)
        offs = torch.arange(1, E + 1, device="cuda", dtype=torch.int32) * r
        print(f"case pair12_{label}_r{r}", flush=True)
        torch._grouped_mm(x, w.transpose(-2, -1), offs=offs)
        torch.cuda.synchronize()
        del w, x
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=40.0, help="seconds for the whole run")
    ap.add_argument("--probe", action="store_true")
    a = ap.parse_args()
    if a.probe:
        return probe()
    import harness
    from run_moe5 import run_parts
    from run_moe7 import counts_case
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    harness.init()
    data = dict(meta=dict(harness.device_meta(), torch=torch.__version__,
                          started=datetime.datetime.now(datetime.timezone.utc).isoformat()),
                pair_cases=[])

    def pair_part(deadline, emit, log):
        for label, E, N, K, stride, rows in CASES:
            w = weight(E, N, K, stride)
            for r in rows:
                if time.perf_counter() > deadline:
                    log(f"pair {label}: budget")
                    break
                try:
                    res = counts_case(f"{label}_r{r}", E, N, K, [r] * E, w)
                    res["name"] = res["name"].replace("pair7_", "pair12_")
                    res["row_stride"] = stride
                except Exception as e:  # noqa: BLE001
                    res = dict(name=f"pair12_{label}_r{r}", ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
                emit("pair_cases", res)
            del w
            torch.cuda.empty_cache()

    def describe(part, r):
        return (f" {r.get('kernel_family', '')} {r.get('kernel_names', '')}"
                f" clk {r.get('sm_clock_mhz_min')}-{r.get('sm_clock_mhz_max')}")
    run_parts(a.out, data, (("pair", pair_part, 1.0),), a.budget, t0, 1.0, describe)


if __name__ == "__main__":
    main()
