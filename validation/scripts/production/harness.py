"""Timing harness for production kernels driven from PyTorch: the project's method
(validation/README.md, /work/.library/device/METHOD.md) applied to library calls.

- Correctness first: every case is checked against an fp32 reference on sampled rows before it
  is timed; a case that fails (or raises) is written with ok/correct false and not timed.
- Hot time: warm-up, then L launches (one replay >= ~1 ms, L <= 1000) captured into one CUDA
  graph that cycles through rotating input sets whose bytes exceed 2x L2 (unless 1000 sets of a
  tiny case cannot); each sample is one replay timed with CUDA events, divided by L. Samples run
  until >= MIN_SAMPLES and (q3-q1)/median <= TARGET_SPREAD, or until the case's time limit.
- If graph capture fails the L launches are issued eagerly between the same events
  (`graph: false` in the case), which then includes any host gaps.
- SM clock (NVML) after every sample; a sample under 0.9x the highest clock seen, or with a
  throttle reason other than idle / application clocks, counts as throttled (kept, not dropped).
"""
import math
import statistics
import time

import torch

L2_BYTES = 60 * 1024 * 1024  # overwritten from the device in init()
MIN_SAMPLES = 10
TARGET_SPREAD = 0.005
MAX_SETS = 1000
_nvml = None


def init():
    """Reads the L2 size from the device and opens NVML (nvidia-ml-py) for the SM clock."""
    global L2_BYTES, _nvml
    p = torch.cuda.get_device_properties(0)
    L2_BYTES = getattr(p, "L2_cache_size", L2_BYTES) or L2_BYTES
    try:
        import pynvml
        pynvml.nvmlInit()
        _nvml = (pynvml, pynvml.nvmlDeviceGetHandleByIndex(0))
    except Exception:  # no NVML: clocks read 0 (unknown), as in the C++ backend
        _nvml = None


def sm_clock():
    """(SM clock MHz, throttled-for-a-reason-other-than-idle-or-app-clocks)."""
    if _nvml is None:
        return 0, False
    nv, h = _nvml
    clk = nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM)
    try:
        reasons = nv.nvmlDeviceGetCurrentClocksEventReasons(h)
    except Exception:
        reasons = nv.nvmlDeviceGetCurrentClocksThrottleReasons(h)
    benign = 0x1 | 0x2  # GpuIdle, ApplicationsClocksSetting
    return clk, bool(reasons & ~benign)


def device_meta():
    p = torch.cuda.get_device_properties(0)
    meta = {"name": torch.cuda.get_device_name(0), "sm_count": p.multi_processor_count,
            "l2_bytes": L2_BYTES, "memory_bytes": p.total_memory, "cc_major": p.major, "cc_minor": p.minor}
    if _nvml is not None:
        nv, h = _nvml
        meta["sm_clock_max_mhz"] = nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_SM)
        meta["driver_version"] = nv.nvmlSystemGetDriverVersion()
        meta["power_limit_w"] = nv.nvmlDeviceGetEnforcedPowerLimit(h) / 1000
    return meta


def rel_error(out, ref):
    """||out-ref|| / ||ref|| and max|out-ref| / rms(ref), in float64; NaN never passes."""
    out = out.double()
    ref = ref.double()
    if not torch.isfinite(out).all():
        return math.inf, math.inf
    d = out - ref
    rms = ref.pow(2).mean().sqrt().item()
    return (d.norm() / ref.norm().clamp_min(1e-30)).item(), (d.abs().max().item() / max(rms, 1e-30))


def kernel_names(fn, args):
    """Names of the GPU kernels one call launches (torch.profiler), to count kernels per call."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(*args)
        torch.cuda.synchronize()
    names = []
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            names.append(e.name)
    return names


def _events_time(run, L):
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    run()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e-3 / L


def time_case(make_set, fn, set_bytes, max_seconds):
    """Hot median per call of fn(*set) over rotating sets; returns the timing fields of a case."""
    nsets = 1 if set_bytes >= 2 * L2_BYTES else min(MAX_SETS, math.ceil(2 * L2_BYTES / max(set_bytes, 1)))
    sets = [make_set() for _ in range(nsets)]
    for i in range(min(3, nsets) if nsets > 1 else 3):
        fn(*sets[i % nsets])
    torch.cuda.synchronize()
    probe = min(nsets, 20) if nsets > 1 else 3
    t_est = _events_time(lambda: [fn(*sets[i % nsets]) for i in range(probe)], probe)
    L = max(1, min(MAX_SETS, math.ceil(1e-3 / max(t_est, 1e-7))))
    if nsets > 1:
        L = max(L, nsets)  # every set once per replay, so replays do not re-read a cached subset
    used = min(L, nsets)
    graph = None
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # capture warm-up on a side stream, as torch.cuda.graphs asks
            fn(*sets[0])
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for i in range(L):
                fn(*sets[i % nsets])
        graph.replay()
        torch.cuda.synchronize()
        run = graph.replay
    except Exception as e:  # not capturable: eager launches between the same events
        graph = None
        torch.cuda.synchronize()
        capture_error = f"{type(e).__name__}: {str(e)[:200]}"

        def run():
            for i in range(L):
                fn(*sets[i % nsets])
    samples, clocks, throttled = [], [], 0
    t0 = time.perf_counter()
    stop = "timeout"
    while True:
        samples.append(_events_time(run, L))
        clk, thr = sm_clock()
        clocks.append(clk)
        throttled += thr
        if len(samples) >= MIN_SAMPLES:
            q = statistics.quantiles(samples, n=4)
            spread = (q[2] - q[0]) / statistics.median(samples)
            if spread <= TARGET_SPREAD:
                stop = f"spread {spread * 100:.2f}% <= {TARGET_SPREAD * 100:.2f}%"
                break
            if time.perf_counter() - t0 > max_seconds:
                stop = f"time limit {max_seconds:.2f} s, spread {spread * 100:.2f}%"
                break
    cmax = max(clocks)
    throttled += sum(1 for c in clocks if c and c < 0.9 * cmax)
    q = statistics.quantiles(samples, n=4)
    med = statistics.median(samples)
    res = {"measured_s": med, "median_s": med, "q1_s": q[0], "q3_s": q[2], "samples": len(samples),
           "converged": stop.startswith("spread"), "stop_reason": stop, "cold_median_s": None,
           "sm_clock_mhz_min": min(clocks), "sm_clock_mhz_max": cmax, "throttled_samples": throttled,
           "launches_per_sample": L, "buffer_sets": nsets, "rotated_bytes": used * set_bytes,
           "graph": graph is not None}
    if graph is None:
        res["graph_error"] = capture_error
    del graph, sets
    return res


CASE_FIELDS = dict(m=0, n=0, k=0, rows=0, cols=0, vocab=0, batch=0, heads=0, kv_heads=0, q_len=0, kv_len=0,
                   head_dim=0, causal=False, residual=False, l2_resident=False, spin_seconds=0)


def run_case(case, make_set, fn, check, set_bytes, max_seconds, want_kernels=True):
    """One case: correctness on a fresh set (check(set) -> (rel, max_rel)), kernel names, timing.

    `case` holds name, kernel, dtype, implementation, the shape fields, flops and bytes."""
    out = dict(CASE_FIELDS)
    out.update(case)
    out.update(ok=False, error="", correct=False, max_rel_error=None, measured_s=None)
    tol = {"bf16": 2e-2, "fp16": 5e-3, "fp32": 1e-5, "tf32": 5e-3, "fp8": 6e-2}[case["dtype"]]
    try:
        s = make_set()
        rel, mx = check(s)
        out["max_rel_error"] = rel
        out["max_abs_over_rms"] = mx
        out["correct"] = bool(rel <= tol and mx <= 10 * tol)
        if not out["correct"]:
            out["error"] = f"check failed: rel {rel:.3g} (tol {tol}), max/rms {mx:.3g}"
            return out
        if want_kernels:
            names = kernel_names(fn, s)
            out["kernels_per_launch"] = len(names)
            out["kernel_names"] = sorted(set(names))
        del s
        out.update(time_case(make_set, fn, set_bytes, max_seconds))
        out["ok"] = True
    except Exception as e:  # a backend that refuses the shape: recorded, not timed
        out["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        out["ok"] = False
    finally:
        torch.cuda.empty_cache()
    return out
