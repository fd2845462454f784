#!/usr/bin/env python3
"""Quantized linears as PyTorch runs them on the GPU (issue 12), timed with the production
harness (validation/scripts/production/harness.py: correctness first, CUDA graph over rotating
input sets > 2x L2, median of the samples, SM clock per sample).

    python3 validation/scripts/quant/quant_gemm.py OUT_DIR --part I/P [--budget S] [--case-seconds S]

Cases (the weight is N x K as nn.Linear stores it; x is M x K bf16):
  gemm       bf16 F.linear, the reference
  gemm_wonly torch._weight_int4pack_mm (tinygemm W4A16, group 32 and 128, bf16 scales+zeros),
             torch._weight_int8pack_mm (W8A16, one bf16 scale per output channel)
  gemm_scaled torch._scaled_mm, e4m3 x e4m3 -> bf16, tensor-wise (scalar scales) and row-wise
             (per-token x per-channel fp32 scales); 128x128 block scales where the library takes them
  act_quant  dynamic tensor-wise (amax then scale/cast), dynamic row-wise (per-token), static
             tensor-wise (scale/cast only) fp8 quantization of M x K bf16: torch.compile'd (the
             fused kernels production engines launch) and eager
  stack      a Llama-3-8B-shaped stack of 32 layers of linears (qkv, o, gate_up, down) in bf16,
             W4A16 (g128) and FP8 row-wise with dynamic per-token activation quantization
Shapes: Llama-3-8B, Llama-3-70B and Qwen2.5-7B projections (fused qkv and gate_up), M = 1..4096.
Cases are dealt round-robin to P parts (one process per GPU); OUT_DIR/quant-I.json is rewritten
after every case, so a run stopped at its time limit keeps what it measured.
"""
import argparse
import datetime
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import harness  # noqa: E402

SHAPES = {  # model: [(tag, N, K)]
    "llama3-8b": [("qkv", 6144, 4096), ("o", 4096, 4096), ("gateup", 28672, 4096), ("down", 4096, 14336)],
    "qwen2.5-7b": [("qkv", 4608, 3584), ("o", 3584, 3584), ("gateup", 37888, 3584), ("down", 3584, 18944)],
    "llama3-70b": [("qkv", 10240, 8192), ("o", 8192, 8192), ("gateup", 57344, 8192), ("down", 8192, 28672)],
}
MS = (1, 4, 16, 32, 64, 128, 256, 1024, 4096)
VARIANTS = ("bf16", "int4_g128", "int4_g32", "int8", "fp8_tensor", "fp8_row")
FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0
TOL = {"bf16": 2e-2, "int4": 2e-2, "int8": 2e-2, "fp8": 6e-2}


def group_quantize_int4(w, group):
    """Asymmetric 4-bit group quantization along K in tinygemm's layout (PyTorch's
    test_linalg._group_quantize_tensor): q in 0..15, w ~ (q - 8) * scale + zero, per group of
    `group` input channels; returns (packed weight, scales_and_zeros [K/g, N, 2] bf16, dequantized w)."""
    n, k = w.shape
    g = w.float().reshape(n, k // group, group)
    lo, hi = g.amin(-1, keepdim=True), g.amax(-1, keepdim=True)
    scale = ((hi - lo).clamp(min=1e-6) / 15)
    zero = lo + scale * 8
    q = ((g - lo) / scale).round().clamp(0, 15).to(torch.int32)
    scale_b, zero_b = scale.to(torch.bfloat16), zero.to(torch.bfloat16)
    deq = ((q.float() - 8) * scale_b.float() + zero_b.float()).reshape(n, k).to(torch.bfloat16)
    q = q.reshape(n, k)
    packed_u8 = (q[:, ::2] << 4 | q[:, 1::2]).to(torch.uint8)
    packed = torch._convert_weight_to_int4pack(packed_u8, 8)
    sz = torch.cat([scale_b.reshape(n, k // group, 1), zero_b.reshape(n, k // group, 1)], 2).transpose(0, 1).contiguous()
    return packed, sz, deq


def quantize_int8(w):
    scale = (w.float().abs().amax(1) / 127).clamp(min=1e-8)
    q = (w.float() / scale[:, None]).round().clamp(-127, 127).to(torch.int8)
    s = scale.to(torch.bfloat16)
    return q, s, (q.float() * s.float()[:, None]).to(torch.bfloat16)


def gemm_case(model, tag, n, k, m, var):
    """(case, make_set, fn, check, set_bytes) for one quantized or bf16 linear."""
    dev = "cuda"
    w = torch.randn(n, k, device=dev, dtype=torch.bfloat16) * 0.02
    base = dict(model=model, shape=tag, m=m, n=n, k=k, flops=2 * m * n * k, scaling="", group_size=0, act_quant="")
    if var == "bf16":
        case = dict(base, name=f"linear_bf16_{model}_{tag}_m{m}", kernel="gemm", dtype="bf16",
                    implementation="torch.linear", weight_bytes=2 * n * k)
        W = w
        fn = lambda x, W: F.linear(x, W)  # noqa: E731
        ref_w = w

        def make_set():
            return torch.randn(m, k, device=dev, dtype=torch.bfloat16), W.clone()
    elif var.startswith("int4"):
        group = int(var.split("_g")[1])
        packed, sz, ref_w = group_quantize_int4(w, group)
        case = dict(base, name=f"w4a16_g{group}_{model}_{tag}_m{m}", kernel="gemm_wonly", dtype="int4",
                    group_size=group, implementation="torch._weight_int4pack_mm",
                    weight_bytes=packed.numel() * packed.element_size() + sz.numel() * 2)

        def fn(x, P, S):
            return torch._weight_int4pack_mm(x, P, group, S)

        def make_set():
            return torch.randn(m, k, device=dev, dtype=torch.bfloat16), packed.clone(), sz.clone()
    elif var == "int8":
        q, s, ref_w = quantize_int8(w)
        case = dict(base, name=f"w8a16_{model}_{tag}_m{m}", kernel="gemm_wonly", dtype="int8", group_size=0,
                    scaling="row", implementation="torch._weight_int8pack_mm", weight_bytes=n * k + 2 * n)

        def fn(x, Q, S):
            return torch._weight_int8pack_mm(x, Q, S)

        def make_set():
            return torch.randn(m, k, device=dev, dtype=torch.bfloat16), q.clone(), s.clone()
    else:  # fp8 tensor / row
        scaling = var.split("_")[1]
        wq = (w.float() / (w.float().abs().amax() / FP8_MAX)).to(FP8) if scaling == "tensor" else None
        if scaling == "row":
            sw = (w.float().abs().amax(1, keepdim=True) / FP8_MAX)
            wq = (w.float() / sw).to(FP8)
            sb = sw.t().contiguous()  # 1 x N
        else:
            sb = (w.float().abs().amax() / FP8_MAX).reshape(())
        ref_w = (wq.float() * (sb.t() if scaling == "row" else sb))
        case = dict(base, name=f"scaled_mm_fp8_{scaling}_{model}_{tag}_m{m}", kernel="gemm_scaled", dtype="fp8",
                    scaling=scaling, implementation="torch._scaled_mm", weight_bytes=n * k)

        mp = -(-m // 16) * 16  # cuBLASLt fp8 wants rows in multiples of 16: pad (as serving engines do)
        case["m_padded"] = mp

        def make_set():
            x = torch.randn(mp, k, device=dev)
            if scaling == "row":
                sa = x.abs().amax(1, keepdim=True) / FP8_MAX
            else:
                sa = (x.abs().amax() / FP8_MAX).reshape(())
            return (x / sa).to(FP8), wq.clone(), sa, sb.clone()

        def fn(x, Wq, sa, sb):  # b column-major: W^T of the row-major N x K weight
            return torch._scaled_mm(x, Wq.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
    dt = case["dtype"]

    def check(s):
        y = fn(*s)
        rows = torch.unique(torch.randint(0, m, (16,), device=dev))
        x = s[0]
        if dt == "fp8":
            xa = x[rows].double() * (s[2][rows].double() if s[2].dim() == 2 else s[2].double())
        else:
            xa = x[rows].double()
        return harness.rel_error(y[rows], xa @ ref_w.double().t())
    esize_x = 1 if dt == "fp8" else 2
    set_bytes = esize_x * m * k + case["weight_bytes"] + 2 * m * n
    case["bytes"] = set_bytes
    return case, make_set, fn, check, set_bytes, TOL[dt]


def q_tensor_dyn(x):
    s = x.abs().amax().float().clamp(min=1e-12) / FP8_MAX
    return (x.float() / s).clamp(-FP8_MAX, FP8_MAX).to(FP8), s


def q_row_dyn(x):
    s = x.abs().amax(1, keepdim=True).float().clamp(min=1e-12) / FP8_MAX
    return (x.float() / s).clamp(-FP8_MAX, FP8_MAX).to(FP8), s


def q_group_dyn(x):
    """Per 1x128 group (DeepSeek-V3 activations): the scales in the column-major (K/128 x M) layout
    _scaled_mm's block-scaled path takes (a copy), as vLLM's per_token_group_quant writes them."""
    m, k = x.shape
    g = x.float().reshape(m, k // 128, 128)
    s = g.abs().amax(-1, keepdim=True).clamp(min=1e-12) / FP8_MAX
    q = (g / s).clamp(-FP8_MAX, FP8_MAX).to(FP8).reshape(m, k)
    return q, s.reshape(m, k // 128).t().contiguous().t()


def q_tensor_static(x, s):
    return (x.float() / s).clamp(-FP8_MAX, FP8_MAX).to(FP8)


COMPILED = {}


def act_case(m, k, mode, impl):
    """Activation quantization of an M x K bf16 tensor to e4m3: mode tensor_dynamic | row_dynamic |
    tensor_static; impl compile | eager."""
    f = {"tensor_dynamic": q_tensor_dyn, "row_dynamic": q_row_dyn, "tensor_static": q_tensor_static,
         "group_dynamic": q_group_dyn}[mode]
    if impl == "compile":
        if mode not in COMPILED:
            COMPILED[mode] = torch.compile(f, dynamic=True)
        f = COMPILED[mode]
    scaling, aq = mode.split("_")
    case = dict(name=f"act_quant_{mode}_{impl}_m{m}_k{k}", kernel="act_quant", dtype="fp8", scaling=scaling,
                act_quant=aq, implementation=f"torch.{impl}", m=m, k=k, n=0, rows=m, cols=k, flops=0,
                bytes=3 * m * k + {"row": 4 * m, "group": 4 * m * (k // 128)}.get(scaling, 4),
                group_size=128 if scaling == "group" else 0)
    static = mode == "tensor_static"

    def make_set():
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        return (x, torch.tensor(0.01, device="cuda")) if static else (x,)

    def check(s):
        out = f(*s)
        q, sc = (out, s[1]) if static else out
        sc = sc.double()
        if sc.dim() == 2 and sc.shape[1] != q.shape[1]:  # 1x128 groups
            sc = sc.repeat_interleave(q.shape[1] // sc.shape[1], dim=1)
        deq = q.double() * sc
        ref = s[0].double()
        if static:
            ref = ref.clamp(-FP8_MAX * 0.01, FP8_MAX * 0.01)
        return harness.rel_error(deq, ref)
    return case, make_set, f, check, 3 * m * k, TOL["fp8"]


def stack_case(dtype, batch, layers=32):
    """Llama-3-8B-shaped stack of linears: per layer qkv, o, gate_up, down, each on its own
    weights (the whole stack streams from HBM once per call)."""
    shapes = SHAPES["llama3-8b"]
    ws = []
    for _ in range(layers):
        layer = []
        for tag, n, k in shapes:
            w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.02
            if dtype == "bf16":
                layer.append((k, w))
            elif dtype == "int4":
                p, sz, _ = group_quantize_int4(w, 128)
                layer.append((k, p, sz))
            else:
                sw = w.float().abs().amax(1, keepdim=True) / FP8_MAX
                layer.append((k, (w.float() / sw).to(FP8), sw.t().contiguous()))
            del w
        ws.append(layer)
    rows = -(-batch // 16) * 16 if dtype == "fp8" else batch  # fp8 rows padded to 16 (cuBLASLt)
    xs = {k: torch.randn(rows, k, device="cuda", dtype=torch.bfloat16) for _, _, k in shapes}
    qrow = torch.compile(q_row_dyn, dynamic=True)

    def fn():
        out = None
        for layer in ws:
            for item in layer:
                x = xs[item[0]]
                if dtype == "bf16":
                    out = F.linear(x, item[1])
                elif dtype == "int4":
                    out = torch._weight_int4pack_mm(x, item[1], 128, item[2])
                else:
                    xq, sa = qrow(x)
                    out = torch._scaled_mm(xq, item[1].t(), scale_a=sa, scale_b=item[2], out_dtype=torch.bfloat16)
        return out
    wbytes = sum(sum(t.numel() * t.element_size() for t in item[1:]) for layer in ws for item in layer)
    case = dict(name=f"stack_llama3-8b_{dtype}_b{batch}", kernel="stack", dtype=dtype, m=batch, layers=layers,
                weight_bytes=wbytes, implementation="torch", scaling="row" if dtype == "fp8" else "",
                act_quant="dynamic" if dtype == "fp8" else "", group_size=128 if dtype == "int4" else 0)
    return case, fn, ws


def run_one(case, make_set, fn, check, set_bytes, tol, case_seconds, want_kernels=True):
    """One case as the harness runs it: correctness on a fresh set, kernel names (unless
    want_kernels is false: the profiler costs a few tenths of a second a case), hot timing. A case
    that fails its check is timed all the same (same kernel, same bytes) and flagged correct false."""
    out = dict(case, ok=False, correct=False, error="", measured_s=None)
    try:
        s = make_set()
        rel, mx = check(s)
        out.update(max_rel_error=rel, max_abs_over_rms=mx, correct=bool(rel <= tol and mx <= 10 * tol))
        # A result of inf / NaN (an overflowed check) would make the file invalid JSON: kept as null, the case failed.
        for key in ("max_rel_error", "max_abs_over_rms"):
            if not math.isfinite(out[key]):
                out[key] = None
        if not out["correct"]:
            out["error"] = f"check failed: rel {rel:.3g} (tol {tol}), max/rms {mx:.3g}"
        if want_kernels:
            names = harness.kernel_names(fn, s)
            out["kernels_per_launch"] = len(names)
            out["kernel_names"] = sorted(set(names))
        del s
        out.update(harness.time_case(make_set, fn, set_bytes, case_seconds))
        out["ok"] = True
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
    torch.cuda.empty_cache()
    return out


def plan():
    """Every case in priority order: Llama-3-8B and Qwen2.5-7B first, Llama-3-70B last."""
    out = []
    for model in ("llama3-8b", "qwen2.5-7b", "llama3-70b"):
        for tag, n, k in SHAPES[model]:
            for m in MS:
                for var in VARIANTS:
                    out.append(("gemm", model, tag, n, k, m, var))
    acts = []
    for k in (4096, 14336, 8192):
        for m in (1, 16, 128, 1024, 4096):
            for mode in ("tensor_dynamic", "row_dynamic", "tensor_static"):
                for impl in ("compile", "eager"):
                    acts.append(("act", m, k, mode, impl))
    # act cases spread through the list so a stopped run still has some of each
    step = max(1, len(out) // max(1, len(acts)))
    merged = []
    for i, c in enumerate(out):
        merged.append(c)
        if i % step == 0 and acts:
            merged.append(acts.pop(0))
    return merged + acts


def measure_items(items, make, cases, log, save, deadline, case_seconds):
    """Each planned item: make(item) -> gemm_case's tuple, run_one, appended to `cases`, logged and
    saved; a setup that raises is recorded (ok false); stops at `deadline` (perf_counter)."""
    for it in items:
        if time.perf_counter() > deadline:
            log("budget spent: stopping")
            break
        try:
            case, make_set, fn, check, set_bytes, tol = make(it)
        except Exception as e:
            cases.append(dict(name=str(it), ok=False, correct=False, error=f"{type(e).__name__}: {str(e)[:300]}"))
            log(f"{it} setup failed: {e}")
            save()
            continue
        out = run_one(case, make_set, fn, check, set_bytes, tol, case_seconds)
        cases.append(out)
        log(f"{out['name']} {out['measured_s']} k={out.get('kernels_per_launch')} {out['error']}")
        save()


def start_run(out, log_name, case_seconds):
    """Opens OUT/log_name, sets the harness up (MIN_SAMPLES=5) and returns (log, meta, t0): log
    prints and appends a line stamped with the seconds since t0; meta names device and software."""
    os.makedirs(out, exist_ok=True)
    t0 = time.perf_counter()
    logf = open(f"{out}/{log_name}", "a")

    def log(msg):
        line = f"[{time.perf_counter() - t0:7.1f}s] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()
    harness.init()
    harness.MIN_SAMPLES = 5
    torch._dynamo.config.cache_size_limit = 64
    meta = {"device": harness.device_meta(), "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "harness": f"validation/scripts/production/harness.py with MIN_SAMPLES=5, case limit {case_seconds} s"}
    return log, meta, t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--part", default="0/1")
    ap.add_argument("--budget", type=float, default=200.0)
    ap.add_argument("--case-seconds", type=float, default=0.08)
    ap.add_argument("--stacks", action="store_true", help="this part also runs the layer stacks (first)")
    a = ap.parse_args()
    part, parts = (int(v) for v in a.part.split("/"))
    log, meta, t0 = start_run(a.out, f"run-{part}.log", a.case_seconds)
    meta.update(part=a.part, cuda_visible_devices=os.environ.get("CUDA_VISIBLE_DEVICES", ""))
    log(f"meta {json.dumps(meta)}")
    res = {"schema_version": 1, "meta": meta, "cases": [], "stacks": [], "probes": []}

    def save():
        tmp = f"{a.out}/quant-{part}.json.tmp"
        with open(tmp, "w") as f:
            json.dump(res, f, indent=1)
        os.replace(tmp, f"{a.out}/quant-{part}.json")

    if a.stacks:
        for dtype in ("bf16", "int4", "fp8"):
            for batch in (1, 16, 64):
                try:
                    case, fn, ws = stack_case(dtype, batch)
                    r = harness.time_case(lambda: (), fn, 1 << 40, 0.3)
                    case.update(r, ok=True)
                    del ws
                except Exception as e:
                    case = dict(name=f"stack_{dtype}_b{batch}", ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
                res["stacks"].append(case)
                log(f"{case['name']} {case.get('measured_s')} {case.get('error', '')}")
                save()
                torch.cuda.empty_cache()
        # 128x128 block-scaled fp8 (DeepSeek-V3): probe whether _scaled_mm takes it here
        try:
            m, n, k = 256, 4096, 4096
            x = torch.randn(m, k, device="cuda").to(FP8)
            w = torch.randn(n, k, device="cuda").to(FP8)
            sa = torch.ones(k // 128, m, device="cuda").t()  # 1x128 per token, outer-dim major
            sb = torch.ones(n // 128, k // 128, device="cuda")
            torch._scaled_mm(x, w.t(), scale_a=sa, scale_b=sb.t(), out_dtype=torch.bfloat16)
            res["probes"].append({"block_128x128": "ok"})
        except Exception as e:
            res["probes"].append({"block_128x128": f"{type(e).__name__}: {str(e)[:300]}"})
        log(f"probe {res['probes']}")
        save()

    items = plan()[part::parts]
    log(f"{len(items)} cases")
    measure_items(items, lambda it: gemm_case(*it[1:]) if it[0] == "gemm" else act_case(*it[1:]), res["cases"], log,
                  save, t0 + a.budget, a.case_seconds)
    log("done")


if __name__ == "__main__":
    main()
