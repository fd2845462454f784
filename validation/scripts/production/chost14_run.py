#!/usr/bin/env python3
"""chost14's one device call (validation/results/h200-chost14): every point's process compiles at
once (one core each, TORCHINDUCTOR_COMPILE_THREADS=1), then each measures with the machine to
itself, one after another in POINTS order (the others wait, asleep, or have exited).

    python3 chost14_run.py OUTDIR [--limit 270]     # writes OUTDIR/chost14.jsonl, run.log
"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# (model, layers, shapes): one process each. tinyllama at 2-32 layers (9 parameters a layer),
# a second shape at 8 and 16, Qwen2.5-7B (12 a layer: q/k/v biases), and the two misses of
# h200-compiled2 again (Llama-3-8B 32 layers; Llama-2-7B L12 b32 as a second shape).
POINTS = [
    ("tinyllama-1.1b", 2, "1:512"),
    ("tinyllama-1.1b", 8, "1:512"),
    ("tinyllama-1.1b", 32, "1:512"),
    ("tinyllama-1.1b", 4, "1:512"),
    ("tinyllama-1.1b", 16, "1:512"),
    ("llama3-8b", 32, "1:512"),
    ("tinyllama-1.1b", 8, "1:512,16:1024"),
    ("qwen2.5-7b", 8, "1:1024"),
    ("llama2-7b", 12, "1:2048,32:1024"),
    ("tinyllama-1.1b", 16, "1:512,16:1024"),
    ("llama3-8b", 8, "1:512"),
    ("qwen2.5-7b", 16, "1:1024"),
]


def main():
    out = sys.argv[1]
    limit = float(sys.argv[sys.argv.index("--limit") + 1]) if "--limit" in sys.argv else 270.0
    barrier = limit * 0.6
    os.makedirs(out, exist_ok=True)
    d = tempfile.mkdtemp(prefix="chost14_")
    jl, log = os.path.join(out, "chost14.jsonl"), open(os.path.join(out, "run.log"), "w")
    env = dict(os.environ, TORCHINDUCTOR_COMPILE_THREADS="1", PYTHONUNBUFFERED="1", CUDA_VISIBLE_DEVICES="0",
               NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1")
    t0 = time.time()
    el = lambda: time.time() - t0  # noqa: E731
    procs = []
    for i, (key, layers, shapes) in enumerate(POINTS):
        lf = open(os.path.join(d, f"log_{i}"), "w")
        p = subprocess.Popen([sys.executable, os.environ.get("CHOST14_PROBE", os.path.join(HERE, "chost14_probe.py")), key, str(layers), shapes,
                              "--tag", str(i), "--dir", d, "--out", jl, "--wait", str(limit)],
                             stdout=lf, stderr=subprocess.STDOUT, env=env)
        procs.append(p)
    ready = lambda i: os.path.exists(os.path.join(d, f"ready_{i}"))  # noqa: E731
    done = lambda i: os.path.exists(os.path.join(d, f"done_{i}"))  # noqa: E731
    while el() < barrier and not all(ready(i) or p.poll() is not None for i, p in enumerate(procs)):
        time.sleep(0.5)
    log.write(f"[{el():.0f}s] barrier: ready {[i for i in range(len(procs)) if ready(i)]}\n")
    measured = set()
    for _ in range(2):  # a second pass for points that were still compiling at the barrier
        for i, p in enumerate(procs):
            if i in measured or p.poll() is not None or not ready(i):
                continue
            if el() > limit - 15:
                break
            busy = sum(1 for j, q in enumerate(procs) if q.poll() is None and not ready(j))
            open(os.path.join(d, f"go_{i}"), "w").write(str(busy))
            ts = el()
            while not done(i) and p.poll() is None and el() < limit - 3:
                time.sleep(0.1)
            try:
                p.wait(timeout=max(1.0, min(15.0, limit - el())))
            except subprocess.TimeoutExpired:
                pass
            measured.add(i)
            log.write(f"[{el():.0f}s] point {i} {POINTS[i]} measured in {el() - ts:.1f}s (compiling beside it: {busy}), rc={p.poll()}\n")
            log.flush()
        while el() < limit - 20 and any(p.poll() is None and not ready(i) and i not in measured for i, p in enumerate(procs)):
            if any(ready(i) and i not in measured and p.poll() is None for i, p in enumerate(procs)):
                break
            time.sleep(0.5)
    for p in procs:
        if p.poll() is None:
            p.kill()
    for i in range(len(procs)):
        log.write(f"==== point {i} {POINTS[i]} ====\n")
        lines = open(os.path.join(d, f"log_{i}")).read().splitlines()
        log.write("\n".join(ln for ln in lines if "UserWarning" not in ln and "warn" not in ln)[-6000:] + "\n")
    log.write(f"done {el():.0f}s\n")
    log.close()
    summary(jl)


def summary(jl):
    import json
    if not os.path.exists(jl):
        print("no records")
        return
    print("model L b ctx order | pre_replay base / noguard / nogc us | stages (base) us | guards | params")
    for ln in open(jl):
        r = json.loads(ln)
        if "base" not in r:
            print(r.get("model"), r.get("layers"), r.get("error"))
            continue
        b = r["base"]
        st = " ".join(f"{k}={v * 1e6:.0f}" for k, v in b.items() if "->" in k or k.startswith("in:") or k in ("post_replay",))
        g = [x.get("leaf_guards") for x in r.get("guards", [])]
        ng = r.get("noguard", {}).get("pre_replay")
        print(f"{r['model']} L{r['layers']} b{r['batch']} ctx{r['ctx']} o{r['measure_order']}/{r['shapes_in_process']} | "
              f"{b.get('pre_replay', 0) * 1e6:.0f} / {ng * 1e6 if ng else -1:.0f} / {r.get('nogc', {}).get('pre_replay', 0) * 1e6:.0f} | "
              f"{st} gc_n={b.get('gc_n')} | {g} | {r['params']} py={r.get('py_calls_per_call', 0):.0f} wall={r['wall_s'] * 1e6:.0f}"
              + (f" ERROR {r['error'][:80]}" if "error" in r else ""))


if __name__ == "__main__":
    main()
