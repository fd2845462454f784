#!/usr/bin/env python3
"""heldgemm17: the board power cap as the production harness meets it (issue 10).

Part A (dynamics): after a rest, one GEMM (or a copy) replayed back to back for LOAD s; a CUDA event
per replay gives each replay's time against time since the load began; a host thread samples NVML
(SM clock, power, temperature) every ~2 ms. Part B (recovery): a heavy load, a rest of g s, a
second load: how fast the budget comes back. Part C: the production harness (harness.run_case)
on tf32 and split-K decode GEMMs, each started after a rest (burst), and two heavy GEMMs from rest
and after a preload. Writes OUT/dynamics.csv, OUT/kernels.json, OUT/run.log, OUT/smi.txt.
"""
import datetime, json, math, os, subprocess, sys, threading, time
sys.path.insert(0, "validation/scripts/production")
import torch
import torch.nn.functional as F
import harness, gemm

OUT = sys.argv[1]
BUDGET = float(sys.argv[2]) if len(sys.argv) > 2 else 220.0
T0 = time.perf_counter()
os.makedirs(OUT, exist_ok=True)
logf = open(f"{OUT}/run.log", "a")


def log(m):
    line = f"[{time.perf_counter() - T0:7.1f}s] {m}"
    print(line, flush=True)
    logf.write(line + "\n"); logf.flush()


def left():
    return BUDGET - (time.perf_counter() - T0)


torch.cuda.set_device(0)
harness.init()
nv, h = harness._nvml
torch.backends.cuda.matmul.allow_tf32 = True
subprocess.run(f"nvidia-smi --query-gpu=name,clocks.current.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv >> {OUT}/smi.txt", shell=True)

rows = []  # csv rows: experiment, kind, t_s, value1, value2, value3


class Sampler:
    def __init__(self):
        self.stop = False; self.s = []

    def run(self):
        while not self.stop:
            t = time.perf_counter()
            try:
                clk = nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM)
                pw = nv.nvmlDeviceGetPowerUsage(h) / 1000.0
                tmp = nv.nvmlDeviceGetTemperature(h, 0)
            except Exception:
                clk, pw, tmp = 0, 0, 0
            self.s.append((t, clk, pw, tmp))
            time.sleep(0.002)


def make_fn(dt, m, n, k):
    """(fn, sets) with rotating sets > 2x L2 as harness.time_case."""
    if dt == "copy":
        nb = 1 << 30
        sets = [(torch.empty(nb // 2, dtype=torch.bfloat16, device="cuda"), torch.randn(nb // 2, device="cuda", dtype=torch.bfloat16))]
        return (lambda a, b: a.copy_(b)), sets, nb
    case, make_set, fn, check, nbytes = gemm._case(dt, "x", m, n, k)
    nsets = 1 if nbytes >= 2 * harness.L2_BYTES else min(1000, math.ceil(2 * harness.L2_BYTES / nbytes))
    return fn, [make_set() for _ in range(nsets)], case["flops"]


def graph_of(fn, sets):
    for i in range(3): fn(*sets[i % len(sets)])
    torch.cuda.synchronize()
    a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
    a.record(); [fn(*sets[i % len(sets)]) for i in range(5)]; b.record(); b.synchronize()
    t = a.elapsed_time(b) * 1e-3 / 5
    L = max(len(sets), max(1, math.ceil(1e-3 / t)))
    L = min(L, 1000)
    side = torch.cuda.Stream(); side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side): fn(*sets[0])
    torch.cuda.current_stream().wait_stream(side); torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(L): fn(*sets[i % len(sets)])
    g.replay(); torch.cuda.synchronize()
    return g, L, t


def load(tag, g, L, seconds, t_est):
    """Back-to-back replays for `seconds` (GPU time est.); per-replay times (s) and their starts."""
    n = max(2, int(seconds / (L * t_est)))
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(n + 1)]
    torch.cuda.synchronize()
    ev[0].record()
    for i in range(n):
        g.replay(); ev[i + 1].record()
    ev[-1].synchronize()
    out, acc = [], 0.0
    for i in range(n):
        d = ev[i].elapsed_time(ev[i + 1]) * 1e-3
        out.append((acc, d / L)); acc += d
    return out


def experiment(tag, dt, m, n, k, rest, seconds, gaps=None):
    fn, sets, flops = make_fn(dt, m, n, k)
    g, L, t_est = graph_of(fn, sets)
    smp = Sampler(); th = threading.Thread(target=smp.run, daemon=True)
    th.start()
    time.sleep(rest)
    t_start = time.perf_counter()
    segs = []
    if gaps is None:
        segs.append((0.0, load(tag, g, L, seconds, t_est)))
    else:
        for gap in gaps:  # a heavy load, a rest of gap s, a short second load
            a0 = time.perf_counter() - t_start
            segs.append((a0, load(tag, g, L, seconds, t_est)))
            time.sleep(gap)
            a1 = time.perf_counter() - t_start
            segs.append((a1, load(tag, g, L, 0.15, t_est)))
            time.sleep(1.5)
    time.sleep(0.05)
    smp.stop = True; th.join()
    for s0, seg in segs:
        for t, d in seg:
            rows.append((tag, "replay", s0 + t, d, flops / d if dt != "copy" else flops / d, L))
    for (t, clk, pw, tmp) in smp.s:
        rows.append((tag, "nvml", t - t_start, clk, pw, tmp))
    allt = [d for _, seg in segs for _, d in seg]
    first = segs[0][1]
    log(f"{tag}: L {L}, est {t_est*1e6:.1f} us; first 5 replays {sum(d for _, d in first[:5])/5*1e6:.1f} us, "
        f"last 20% {sorted(d for _, d in first[int(0.8*len(first)):])[len(first[int(0.8*len(first)):])//2]*1e6:.1f} us, "
        f"clk {min(c for _, c, _, _ in smp.s)}-{max(c for _, c, _, _ in smp.s)}, power max {max(p for _, _, p, _ in smp.s):.0f} W")
    del g, sets
    torch.cuda.empty_cache()


A = [("bf16_192x192", "bf16", 16384, 28672, 5120), ("bf16_320x128", "bf16", 16384, 4096, 5120),
     ("bf16_256x128_k14336", "bf16", 6000, 3584, 14336), ("bf16_m200", "bf16", 200, 28672, 5120),
     ("bf16_m777_k14336", "bf16", 777, 5120, 14336), ("fp16_m6000", "fp16", 6000, 3584, 14336),
     ("tf32_m6000", "tf32", 6000, 5120, 14336), ("fp8_m16384", "fp8", 16384, 8192, 14336),
     ("copy_1GB", "copy", 0, 0, 0), ("bf16_gemv_m1", "bf16", 1, 28672, 8192)]
log("part A: dynamics, rest 1.5 s then 1.0 s of back-to-back replays")
for tag, dt, m, n, k in A:
    if left() < 150: log("budget: part A stops"); break
    try:
        experiment(tag, dt, m, n, k, 1.5, 1.0)
    except Exception as e:
        log(f"{tag}: FAILED {type(e).__name__}: {str(e)[:200]}")
log("part B: recovery after 0.4 s of load")
try:
    if left() > 125:
        experiment("recovery_bf16_192x192", "bf16", 16384, 28672, 5120, 1.5, 0.4, gaps=[0.01, 0.03, 0.1, 0.3, 1.0])
except Exception as e:
    log(f"recovery: FAILED {type(e).__name__}: {str(e)[:200]}")
with open(f"{OUT}/dynamics.csv", "w") as f:
    f.write("experiment,kind,t_s,value1,value2,value3\n# replay: t since load start (s), per-launch time (s), FLOP/s (bytes/s for copy), L; nvml: t (s), SM MHz, power W, temp C\n")
    for r in rows:
        f.write(",".join(str(x) for x in r) + "\n")

log("part C: the production harness, each case after a 0.5 s rest")
C = []
for m in (1, 8, 64, 256, 777, 2048, 6000):
    C += [("tf32", "phi3_qkv", m, 9216, 3072), ("tf32", "nemo_down", m, 5120, 14336)]
for n, k in ((9216, 3072), (5120, 14336), (5120, 8192), (6144, 4096), (12288, 4096), (4096, 14336), (2048, 8192), (7168, 5120)):
    for m in (1, 8):
        C.append(("bf16", f"sk_n{n}_k{k}", m, n, k))
cases = []
meta = {"device": harness.device_meta(), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git_sha": os.environ.get("GIT_SHA", ""), "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "harness": "perfmodel production driver (validation/scripts/production/harness.py), each case after 0.5 s of rest (heldgemm17 power_dyn.py): fp32 reference on sampled rows, CUDA graph of L launches over rotating sets > 2x L2, median of >= 10 samples, stop at (q3-q1)/median <= 0.5% or 0.4 s"}


def dump():
    json.dump({"schema_version": 1, "meta": meta,
               "summary": {"cases": len(cases), "ok": sum(c["ok"] for c in cases), "correct": sum(c["correct"] for c in cases),
                           "converged": sum(bool(c.get("converged")) for c in cases)}, "cases": cases},
              open(f"{OUT}/kernels.json", "w"), indent=1)


def harness_case(dt, tag, m, n, k, rest, pre=None):
    case, make_set, fn, check, nbytes = gemm._case(dt, tag, m, n, k)
    if pre is not None:
        pfn, psets, _ = make_fn(*pre); pg, pL, pt = graph_of(pfn, psets)
        load("pre", pg, pL, 0.4, pt); del pg, psets
        case["name"] += "_after_0.4s_load"
    else:
        time.sleep(rest)
    r = harness.run_case(case, make_set, fn, check, nbytes, 0.4)
    cases.append(r); dump()
    log(f"{r['name']}: {(r.get('median_s') or 0)*1e6:.2f} us, n {r.get('samples')}, L {r.get('launches_per_sample')}, clk {r.get('sm_clock_mhz_min')}-{r.get('sm_clock_mhz_max')}, {r.get('stop_reason')}, {[x[:60] for x in r.get('kernel_names', [])]}")


for dt, tag, m, n, k in C:
    if left() < 25: log("budget: part C stops"); break
    harness_case(dt, tag, m, n, k, 0.5)
for pre in (None, ("bf16", 16384, 28672, 5120)):
    for dt, tag, m, n, k in (("bf16", "nemo_gateup", 16384, 28672, 5120), ("bf16", "g2_down", 6000, 3584, 14336)):
        if left() < 8: break
        harness_case(dt, tag, m, n, k, 1.5, pre)
dump()
subprocess.run(f"nvidia-smi --query-gpu=name,clocks.current.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv >> {OUT}/smi.txt", shell=True)
log("done")
