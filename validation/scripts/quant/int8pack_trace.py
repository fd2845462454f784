#!/usr/bin/env python3
"""quant9's probe of torch int8pack's later rounds (issue 12; results in validation/results/h200-quant9).

    python3 validation/scripts/quant/int8pack_trace.py OUT_DIR

h200-quant8 found that ATen's weight_int8pack_mm_kernel at 1-4 rows jumps far more than one more
round's chain once an SM has more than 8 blocks (N = 16896 -> 17408 at M = 1: 318 -> 584 us) and
did not find why. This runs the same kernel source (PyTorch 2.11 aten/src/ATen/native/cuda/int8mm.cu,
one thread per output, 16 x 16 blocks, rows past M return at once), compiled by NVRTC through
CuPy, once plain (its time beside torch._weight_int8pack_mm's, to show the copy is the same
kernel) and once with one thread a block recording %smid, %warpid, %globaltimer at entry and exit
and its clock64 cycles: where each block ran, when it started and how long it took, round by round.
That names which of (a) placement (later blocks packed on a few SMs), (b) late dispatch (later
blocks start well after a slot frees) or (c) slower K steps (later blocks take longer at the same
company) makes the jump.

Correctness first (16 sampled outputs against float64), then CUDA events around single launches over
3 rotating weight sets (> 2x L2 at the large N), median of 15. OUT_DIR/trace.npz holds every block
record; OUT_DIR/trace.json the timings and the per-case summary.
"""
import json
import os
import sys

import cupy as cp
import numpy as np

SRC = r"""
extern "C" __global__ void plain(const float* x, const signed char* w, const float* scale, float* out,
                                 int B, int K, int N) {
  int b = blockIdx.y * blockDim.y + threadIdx.y;
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= B || n >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * static_cast<float>(w[n * K + k]);
  out[b * N + n] = acc * scale[n];
}
extern "C" __global__ void traced(const float* x, const signed char* w, const float* scale, float* out,
                                  int B, int K, int N, unsigned long long* rec) {
  int b = blockIdx.y * blockDim.y + threadIdx.y;
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  const bool lead = threadIdx.x == 0 && threadIdx.y == 0;
  unsigned long long t0 = 0;
  long long c0 = 0;
  if (lead) { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0)); c0 = clock64(); }
  if (b >= B || n >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * static_cast<float>(w[n * K + k]);
  out[b * N + n] = acc * scale[n];
  if (lead) {
    unsigned long long t1;
    unsigned int smid, warpid;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
    long long c1 = clock64();
    size_t i = 4 * (size_t)(blockIdx.y * gridDim.x + blockIdx.x);
    rec[i] = t0; rec[i + 1] = t1; rec[i + 2] = smid | ((unsigned long long)warpid << 32);
    rec[i + 3] = (unsigned long long)(c1 - c0);
  }
}
"""

CASES = [(1, 16896, 4096), (1, 17408, 4096), (1, 20480, 4096), (1, 24576, 4096), (1, 28672, 4096),
         (4, 16896, 4096), (4, 17408, 4096), (16, 8464, 4096)]


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    import torch
    mod = cp.RawModule(code=SRC, options=("-std=c++17",))
    plain, traced = mod.get_function("plain"), mod.get_function("traced")
    dev = cp.cuda.Device()
    print("device", cp.cuda.runtime.getDeviceProperties(dev.id)["name"], "SMs", dev.attributes["MultiProcessorCount"],
          "regs plain", getattr(plain, "num_regs", -1), "traced", getattr(traced, "num_regs", -1), flush=True)
    res, arrays = [], {}
    for m, n, k in CASES:
        sets = 3
        xs = [cp.random.standard_normal((m, k), dtype=cp.float32) for _ in range(sets)]
        ws = [cp.random.randint(-127, 128, (n, k), dtype=cp.int8) for _ in range(sets)]
        sc = [cp.random.random_sample(n, dtype=cp.float32) + 0.5 for _ in range(sets)]
        y = cp.empty((m, n), cp.float32)
        grid, block = ((n + 15) // 16, (m + 15) // 16), (16, 16)
        args = lambda i: (xs[i], ws[i], sc[i], y, np.int32(m), np.int32(k), np.int32(n))
        y.fill(float("nan"))
        plain(grid, block, args(0))
        cols = np.random.default_rng(0).choice(n, 16, replace=False)
        ref = (cp.asnumpy(xs[0]).astype(np.float64) @ cp.asnumpy(ws[0][cols]).astype(np.float64).T) * cp.asnumpy(sc[0][cols])
        err = float(np.max(np.abs(cp.asnumpy(y[:, cols]) - ref)) / (np.sqrt(np.mean(ref ** 2)) + 1e-30))
        ok = err < 1e-3 and not np.isnan(cp.asnumpy(y)).any()

        def timed(fn):
            ts = []
            for r in range(18):
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                e0.record()
                fn(r % sets)
                e1.record()
                e1.synchronize()
                if r >= 3:
                    ts.append(cp.cuda.get_elapsed_time(e0, e1) * 1e3)
            return float(np.median(ts)), float(np.percentile(ts, 25)), float(np.percentile(ts, 75))
        t_plain = timed(lambda i: plain(grid, block, args(i)))
        rec = cp.zeros(4 * grid[0] * grid[1], cp.uint64)
        t_traced = timed(lambda i: traced(grid, block, args(i) + (rec,)))
        traced(grid, block, args(1) + (rec,))  # the recorded launch
        cp.cuda.runtime.deviceSynchronize()
        r = cp.asnumpy(rec).reshape(-1, 4)
        # torch's own op on the same shapes (its four kernels: casts around the same kernel)
        tx = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for _ in range(sets)]
        tw = [torch.from_dlpack(ws[i]) for i in range(sets)]
        ts_ = [torch.from_dlpack(sc[i]).to(torch.bfloat16) for i in range(sets)]
        t_torch = timed(lambda i: torch._weight_int8pack_mm(tx[i], tw[i], ts_[i]))
        t0 = r[:, 0].min()
        start, end = (r[:, 0] - t0) / 1e3, (r[:, 1] - t0) / 1e3
        sm, warp, cyc = (r[:, 2] & 0xffffffff).astype(int), (r[:, 2] >> 32).astype(int), r[:, 3].astype(float)
        name = f"m{m}_n{n}_k{k}"
        arrays[name] = r
        per_sm = np.bincount(sm, minlength=132)
        first = start < 20.0  # launched with the kernel (the first resident round; its blocks end after >= 150 us)
        summ = {"m": m, "n": n, "k": k, "blocks": int(len(r)), "correct": ok, "max_rel_error": err,
                "plain_us": t_plain, "traced_us": t_traced, "torch_us": t_torch,
                "span_us": float(end.max()), "first_round_blocks": int(first.sum()),
                "blocks_per_sm_max": int(per_sm.max()), "blocks_per_sm_min": int(per_sm.min()),
                "first_end_us": [float(np.min(end[first])), float(np.median(end[first])), float(np.max(end[first]))],
                "regs": [getattr(plain, "num_regs", -1), getattr(traced, "num_regs", -1)]}
        late = ~first
        if late.any():
            late_sm = np.bincount(sm[late], minlength=132)
            summ.update({
                "late_blocks": int(late.sum()), "late_sms": int((late_sm > 0).sum()), "late_per_sm_max": int(late_sm.max()),
                "late_start_us": [float(np.min(start[late])), float(np.median(start[late])), float(np.max(start[late]))],
                "late_dur_us": [float(np.min(end[late] - start[late])), float(np.median(end[late] - start[late])),
                                float(np.max(end[late] - start[late]))],
                "late_cycles_per_k": float(np.median(cyc[late]) / k)})
        summ["first_dur_us"] = [float(np.min(end[first] - start[first])), float(np.median(end[first] - start[first])),
                                float(np.max(end[first] - start[first]))]
        summ["first_cycles_per_k"] = float(np.median(cyc[first]) / k)
        summ["warpid_mod4_first"] = np.bincount(warp[first] % 4, minlength=4).tolist()
        if late.any():
            summ["warpid_mod4_late"] = np.bincount(warp[late] % 4, minlength=4).tolist()
        res.append(summ)
        print(json.dumps(summ), flush=True)
        del xs, ws, sc, y, rec, tx, tw, ts_
        cp.get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()
        np.savez_compressed(os.path.join(out_dir, "trace.npz"), **arrays)
        with open(os.path.join(out_dir, "trace.json"), "w") as f:
            json.dump({"cases": res}, f, indent=1)


if __name__ == "__main__":
    main()
