#!/usr/bin/env python3
"""Tables of hostgrow.py's results (validation/results/h200-hostgrow/*.json): per point the wall,
the host's return time and thread CPU time, the kernels, the allocator's device allocs / frees and
the synchronizing calls in a step; then the CUDA runtime calls of the profiled steps.

    python3 validation/scripts/production/hostgrow_table.py validation/results/h200-hostgrow/*.json
"""
import json
import sys


def med(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2 if v else float("nan")


def main(paths):
    print("| run | model | batch | ctx | cache GB | wall ms (min-max) | host return ms | thread CPU ms | kernels ms | "
          "GPU busy ms | device allocs / frees a step | retries | syncs | steal / invol. cs | nogc wall |")
    print("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: |")
    for p in paths:
        d = json.load(open(p))
        run = p.split("/")[-1].replace(".json", "")
        for r in d["points"]:
            if "error" in r:
                print(f"| {run} | | {r['batch']} | {r['ctx']} | error |")
                continue
            pr, md, ps = r["profile"], r["mem_delta_per_step"], r.get("proc_stat_delta", {})
            print(f"| {run} | {r['model']} | {r['batch']} | {r['ctx']} | {r['cache_bytes'] / 1e9:.1f} | "
                  f"{r['wall_med_ms']:.1f} ({min(r['wall_ms']):.1f}-{max(r['wall_ms']):.1f}) | {r['ret_med_ms']:.1f} | "
                  f"{med(r.get('thread_cpu_ms', [])):.1f} | {pr['kernel_ms']:.1f} | {pr['gpu_busy_ms']:.1f} | "
                  f"{md['num_device_alloc']:.1f} / {md['num_device_free']:.1f} | {md['num_alloc_retries']:.1f} | "
                  f"{r['sync_warnings']} | {ps.get('steal', '')} / {ps.get('invol_cs', '')} | "
                  f"{r.get('nogc_wall_med_ms', float('nan')):.1f} |")
    print()
    for p in paths:
        d = json.load(open(p))
        for r in d["points"]:
            if "error" in r:
                continue
            calls = ", ".join(f"{k} {v['n']:.0f}x {v['total_us'] / 1e3:.2f} ms (max {v['max_us']:.0f} us)"
                              for k, v in list(r["profile"]["runtime_calls"].items())[:6])
            print(f"- {p.split('/')[-1]} {r['model']} b{r['batch']} ctx{r['ctx']}: {calls}; "
                  f"long calls {r['profile']['long_calls'][:4]}")


if __name__ == "__main__":
    main(sys.argv[1:])
