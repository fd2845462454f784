#!/usr/bin/env python3
"""Device run of the `walkstep` task (issue 10): where the time of Inductor's looped layer_norm goes, CTA by CTA.

    python3 validation/scripts/production/walkstep.py OUT_DIR [--budget S] [--ncu]

Inductor's looped layer_norm kernel (torch 2.11 / Triton 3.6 code of h200-walkdefault/inductor_code.json:
XBLOCK 1, R0_BLOCK 2048, 16 warps, num_stages 1, Welford sweep then the normalize sweep), copied here as a
Triton kernel with the shape's numbers as constants (as Inductor bakes them), launched at 1536 / 3072 rows x
2-10 whole 2048-column blocks, 528 rows (one CTA wave), and the two guard shapes (h200-production's 8192 x
14336, h200-eltwise4's 1536 x 18944). For each: the plain kernel timed (CUDA events, rotating inputs, median),
and a copy that stamps each CTA's SM, %clock64 and %globaltimer at its start and after its store: the
busiest SM's CTAs one after another, how many run at once, when the last one starts and ends, to tell whether
the time beyond the rows' issue is the last CTA's lone walk (a tail), a slower issue (e.g. instruction
cache misses: the SASS size is recorded), or the first wave's start. With --ncu only the plain kernels run
(once each, for Nsight Compute's instruction counts and warp stall reasons). Nothing here is fitted on.

Hypothesis, stated before the call: past ~5 blocks the busiest SM's last CTA runs alone for about its whole
walk (the others done), so the time is n rows' issue + one lone walk; at fewer blocks the last CTAs overlap.
"""
import argparse
import json
import os
import sys
import time
import traceback

import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import libdevice

# In order of need (a spent budget drops the last): the 1536-row sweep, the two guard shapes, 3072 rows, one wave.
SHAPES = ([(1536, 2048 * b) for b in (2, 3, 4, 5, 6, 7, 8, 10)] +
          [(8192, 14336), (1536, 18944)] +
          [(3072, 2048 * b) for b in (4, 5, 6, 8, 10)] +
          [(528, 2048 * b) for b in (6, 10)])


@triton.jit
def _clock():
    return tl.inline_asm_elementwise("mov.u64 $0, %clock64;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)


@triton.jit
def _gtimer():
    return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)


@triton.jit
def _smid():
    return tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def ln_kernel(in_ptr0, in_ptr1, in_ptr2, out_ptr2, stamp_ptr, xnumel: tl.constexpr, r0_numel: tl.constexpr,
              XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr, STAMP: tl.constexpr):
    if STAMP:
        c0 = _clock()
        g0 = _gtimer()
        sm = _smid()
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex
    tmp3_mean = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp3_m2 = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp3_weight = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + r0_numel * x0), r0_mask & xmask, eviction_policy='evict_last',
                       other=0.0).to(tl.float32)
        tmp1 = tmp0.to(tl.float32)
        tmp2 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
        tmp3_mean_next, tmp3_m2_next, tmp3_weight_next = triton_helpers.welford_reduce(
            tmp2, tmp3_mean, tmp3_m2, tmp3_weight, roffset == 0)
        tmp3_mean = tl.where(r0_mask & xmask, tmp3_mean_next, tmp3_mean)
        tmp3_m2 = tl.where(r0_mask & xmask, tmp3_m2_next, tmp3_m2)
        tmp3_weight = tl.where(r0_mask & xmask, tmp3_weight_next, tmp3_weight)
    tmp4, tmp5, tmp6 = triton_helpers.welford(tmp3_mean, tmp3_m2, tmp3_weight, 1)
    tmp3 = tmp4[:, None]
    tmp7 = tmp5[:, None]
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        r0_1 = r0_index
        tmp9 = tl.load(in_ptr0 + (r0_1 + r0_numel * x0), r0_mask & xmask, eviction_policy='evict_first',
                       other=0.0).to(tl.float32)
        tmp18 = tl.load(in_ptr1 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp21 = tl.load(in_ptr2 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp10 = tmp9.to(tl.float32)
        tmp11 = tmp10 - tmp3
        tmp12 = tl.full([1, 1], r0_numel, tl.float32)
        tmp13 = (tmp7 / tmp12)
        tmp14 = tl.full([1, 1], 1e-05, tl.float32)
        tmp15 = tmp13 + tmp14
        tmp16 = libdevice.rsqrt(tmp15)
        tmp17 = tmp11 * tmp16
        tmp19 = tmp18.to(tl.float32)
        tmp20 = tmp17 * tmp19
        tmp22 = tmp21.to(tl.float32)
        tmp23 = tmp20 + tmp22
        tmp24 = tmp23.to(tl.float32)
        tl.store(out_ptr2 + (r0_1 + r0_numel * x0), tmp24, r0_mask & xmask)
    if STAMP:
        c1 = _clock()
        g1 = _gtimer()
        base = stamp_ptr + tl.program_id(0) * 5
        tl.store(base + 0, sm.to(tl.int64))
        tl.store(base + 1, c0)
        tl.store(base + 2, c1)
        tl.store(base + 3, g0)
        tl.store(base + 4, g1)


def launch(x, w, b, y, stamps, rows, cols, stamp):
    return ln_kernel[(rows,)](x, w, b, y, stamps, xnumel=rows, r0_numel=cols, XBLOCK=1, R0_BLOCK=2048,
                              STAMP=stamp, num_warps=16, num_stages=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--ncu", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    tag = "ncu" if a.ncu else "run"
    logf = open(f"{a.out}/{tag}.log", "a")

    def log(msg):
        line = f"[{time.perf_counter() - t0:6.1f}s] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    dev = torch.device("cuda", 0)
    props = torch.cuda.get_device_properties(0)
    meta = {"device": props.name, "sms": props.multi_processor_count, "torch": torch.__version__,
            "triton": triton.__version__, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    log(f"meta {json.dumps(meta)}")
    results = {"meta": meta, "cases": []}
    shapes = SHAPES if not a.ncu else [s for s in SHAPES if s[0] in (1536, 8192)]
    for rows, cols in shapes:
        if time.perf_counter() - t0 > a.budget:
            log(f"budget spent before {rows}x{cols}")
            break
        case = {"rows": rows, "cols": cols, "blocks": (cols + 2047) // 2048}
        try:
            g = torch.Generator(device=dev).manual_seed(rows * 7 + cols)
            nbuf = max(1, min(4, int(120e6 // (rows * cols * 2)) + 1))  # rotate > L2 (60 MB) of inputs
            xs = [torch.randn(rows, cols, device=dev, dtype=torch.bfloat16, generator=g) for _ in range(nbuf)]
            w = torch.randn(cols, device=dev, dtype=torch.bfloat16, generator=g)
            bb = torch.randn(cols, device=dev, dtype=torch.bfloat16, generator=g)
            ys = [torch.empty_like(xs[0]) for _ in range(nbuf)]
            stamps = torch.zeros(rows * 5, device=dev, dtype=torch.int64)
            # correctness against fp32 layer_norm, output poisoned first
            ys[0].fill_(float("nan"))
            k = launch(xs[0], w, bb, ys[0], stamps, rows, cols, False)
            ref = torch.nn.functional.layer_norm(xs[0].float(), (cols,), w.float(), bb.float())
            err = ((ys[0].float() - ref).norm() / ref.norm()).item()
            case["rel_err"] = err
            case["n_regs"] = getattr(k, "n_regs", None)
            case["n_spills"] = getattr(k, "n_spills", None)
            try:
                case["cubin_bytes"] = len(k.asm["cubin"])
                sass = k.asm.get("sass") if hasattr(k.asm, "get") else None
                if sass is None and not a.ncu:
                    sass = k.asm["sass"]
                if sass:
                    lines = [l for l in sass.splitlines() if "/*" in l and ";" in l]
                    case["sass_insts"] = len(lines)
                    case["sass_ldg"] = sum(" LDG" in l for l in lines)
                    case["sass_stg"] = sum(" STG" in l for l in lines)
                    case["sass_bra"] = sum(" BRA" in l for l in lines)
                    case["sass_bar"] = sum(" BAR" in l for l in lines)
            except Exception as e:  # the SASS is a side record
                case["sass_error"] = repr(e)[:200]
            if a.ncu:  # one launch each of the plain kernel for Nsight Compute
                torch.cuda.synchronize()
                for i in range(1):
                    launch(xs[i % nbuf], w, bb, ys[i % nbuf], stamps, rows, cols, False)
                torch.cuda.synchronize()
                log(f"ncu {rows}x{cols} regs {case['n_regs']} err {err:.2e}")
                continue
            # timing: the plain and the stamped kernel, rotating inputs, events around each launch
            for stamp in (False, True):
                for i in range(3):
                    launch(xs[i % nbuf], w, bb, ys[i % nbuf], stamps, rows, cols, stamp)
                torch.cuda.synchronize()
                ts = []
                for i in range(40):
                    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    e0.record()
                    launch(xs[i % nbuf], w, bb, ys[i % nbuf], stamps, rows, cols, stamp)
                    e1.record()
                    ts.append((e0, e1))
                torch.cuda.synchronize()
                us = sorted(e0.elapsed_time(e1) * 1e3 for e0, e1 in ts)
                case["us_stamped" if stamp else "us_plain"] = us[len(us) // 2]
                case["us_q1_stamped" if stamp else "us_q1_plain"] = us[len(us) // 4]
            # three stamped launches kept (after the timing: warm code, rotating inputs)
            case["stamps"] = []
            for i in range(3):
                stamps.zero_()
                launch(xs[(i + 1) % nbuf], w, bb, ys[(i + 1) % nbuf], stamps, rows, cols, True)
                torch.cuda.synchronize()
                case["stamps"].append(stamps.view(rows, 5).cpu().tolist())
            log(f"{rows}x{cols} blocks {case['blocks']} regs {case['n_regs']} spills {case['n_spills']} "
                f"sass {case.get('sass_insts')} ldg {case.get('sass_ldg')} err {err:.2e} "
                f"plain {case['us_plain']:.2f} stamped {case['us_stamped']:.2f} us")
        except Exception:
            case["error"] = traceback.format_exc()[-2000:]
            log(f"{rows}x{cols} FAILED {case['error']}")
        results["cases"].append(case)
        with open(f"{a.out}/{tag}.json", "w") as f:
            json.dump(results, f)
    log("done")


if __name__ == "__main__":
    main()
