// A step's cost: its ops priced one by one, the kernel switch of a fused step, and the clock the
// board's power cap leaves a serving loop (docs/model.md, "power cap").
#include <algorithm>

#include "kernel_costs.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

namespace {

// An op's time when its compute runs at clock scale phi: only compute beyond what bounded it
// before adds (memory streams and fixed costs do not follow the SM clock).
double at_clock(const OpCost& c, double phi) {
  const double busy = std::max(c.compute_time_s, c.memory_time_s);
  return c.time_s + std::max(0.0, c.compute_time_s / phi - busy);
}

// Eager: the host issues each kernel after its dispatch and the GPU runs it once both the launch
// and the previous kernel are done (an unbounded launch queue), layer after layer: an op of count
// n runs in each of the first n rounds over the step's ops. The step ends when the last kernel
// does (the host's final wait).
// `step_host` is the forward's own host time before its first op (host_per_step).
double eager_wall_time(const std::vector<const Op*>& ops, const std::vector<OpCost>& costs, double step_host) {
  int64_t rounds = 0;
  for (const Op* op : ops) rounds = std::max(rounds, op->count);
  double host = step_host, gpu = 0;
  for (int64_t k = 0; k < rounds; ++k)
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i]->count <= k || ops[i]->overlaps) continue;
      host += costs[i].host_time_s;
      gpu = std::max(gpu, host) + costs[i].device_time_s;
    }
  return std::max(host, gpu);
}

}  // namespace

StepCost price_step(const Step& step, const Roofs& roofs, Impl impl, double rest_s) {
  std::vector<const Op*> ops;
  std::vector<OpCost> costs;
  ops.reserve(step.ops.size());
  costs.reserve(step.ops.size());
  for (const Op& op : step.ops) {
    ops.push_back(&op);
    costs.push_back(price(op, roofs, impl));
  }
  return combine_step(ops, std::move(costs), roofs, impl, rest_s);
}

StepCost price_step(const Step& step, const Roofs& roofs, const Workload& w) {
  const Impl impl = runs_as(w);
  return price_step(step, impl != w.impl && roofs.uncompiled ? *roofs.uncompiled : roofs, impl, w.gpu_rest_s);
}

// A compiled step's split-K GEMM under cuBLASLt's split rule (a `gemm:` block with split_k_min_slice)
// is two kernels of the graph, nvjet's `_splitK_` and splitKreduce_kernel (every split GEMM of
// h200-compiled2's traces), and the replay idles before each: the reduce's own launch, which the
// block prices in time (split_k_reduce) but Op::launches does not count (branch compfuse).
// graph_kernel_gap is fitted over the launches so counted (fit_compiled.py). The fused profile's
// gap was fitted without it (h200-fused-step-alone): not counted there.
namespace {
int64_t split_reduce_launches(const Op& op, const OpCost& c, const Roofs& roofs, Impl impl) {
  if (impl != Impl::compiled || roofs.gemm_split_k_min_slice <= 0 || !c.tiling) return 0;
  return c.tiling->split_k > 1 ? op.launches : 0;
}
}  // namespace

StepCost combine_step(const std::vector<const Op*>& ops, std::vector<OpCost> costs, const Roofs& roofs, Impl impl,
                      double rest_s) {
  StepCost s;
  s.ops = std::move(costs);
  StepLoad load;  // what the step keeps busy at the full clock (power cap)
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = *ops[i];
    OpCost& c = s.ops[i];
    // In a step every op starts after a different op's kernel (docs/model.md, "kernel switch").
    if (impl == Impl::fused && roofs.kernel_switch_s > 0) {
      c.time_s += roofs.kernel_switch_s;
      c.device_time_s += roofs.kernel_switch_s;
      c.overhead_time_s += roofs.kernel_switch_s;
    }
    // Inside a CUDA graph replay each kernel's launch waits for the previous kernel to drain, and
    // the GPU idles graph_kernel_gap per launch (docs/model.md, "graph replay gap"; measured as the
    // GPU-alone replay, the host's launch hidden behind a GPU spin, minus the kernel sum:
    // validation/results/h200-fused-step-alone, h200-host-probe). GPU time but not kernel time:
    // device_time_s stays the kernel sum (what a profiler shows).
    if (impl != Impl::eager && roofs.graph_kernel_gap_s > 0) {
      const double gap = roofs.graph_kernel_gap_s * static_cast<double>(op.launches + split_reduce_launches(op, c, roofs, impl));
      c.time_s += gap;
      c.overhead_time_s += gap;
    }
    const double peak = roofs.peak[static_cast<size_t>(op.precision)];
    const double n = static_cast<double>(op.count);
    if (op.kernel == KernelId::attention_prefill_fused) load.attention_s += n * c.compute_time_s;
    else if (is_tensor(op.precision) && op.flops > 0 && peak > 0) load.tensor_s += n * op.flops / peak;
  }
  // A serving loop runs its steps back to back: the power cap sets the clock (power.hpp). The cap
  // acts on the board's power averaged over seconds, so a rest before each step (rest_s, at idle
  // power) counts in the average as the step's own time does: fused_replay_probe.py's spin-first
  // replays of a 7-8B ctx512 prefill (11.6 ms behind a 3 ms spin) ran at the profiler's full-clock
  // kernel sum, the same graph back to back 11 % longer (validation/results/h200-fused-step-alone).
  auto step_time = [&](double phi) {
    double t = rest_s;
    for (size_t i = 0; i < s.ops.size(); ++i)
      if (!ops[i]->overlaps) t += static_cast<double>(ops[i]->count) * at_clock(s.ops[i], phi);
    return t;
  };
  s.clock_scale = capped_clock_scale(roofs.power, load, step_time);
  for (size_t i = 0; i < s.ops.size(); ++i) {
    OpCost& c = s.ops[i];
    if (s.clock_scale < 1) {
      c.device_time_s += std::max(0.0, c.compute_time_s / s.clock_scale - std::max(c.compute_time_s, c.memory_time_s));
      c.time_s = at_clock(c, s.clock_scale);
      c.compute_time_s /= s.clock_scale;
      c.overhead_time_s = c.time_s - std::max(c.compute_time_s, c.memory_time_s);
      if (c.bound != Bound::overhead) c.bound = c.compute_time_s >= c.memory_time_s ? Bound::compute : Bound::memory;
      if (ops[i]->flops > 0 && c.time_s > 0) c.achieved_flops = ops[i]->flops / c.time_s;
    }
    const double n = static_cast<double>(ops[i]->count);
    // An overlapping op (a pipeline stage's send) runs beside the step's work, not on its path.
    if (ops[i]->overlaps) continue;
    s.time_s += n * c.time_s;
    s.roofline_time_s += n * c.roofline_time_s;
    s.device_time_s += n * c.device_time_s;
    s.host_time_s += n * c.host_time_s;
    (c.bound == Bound::compute ? s.compute_time_s
     : c.bound == Bound::memory ? s.memory_time_s
                                : s.overhead_time_s) += n * c.time_s;
  }
  if (impl == Impl::eager) {
    const double step_host = roofs.host_per_step_s.value_or(0);
    s.host_time_s += step_host;
    s.time_s = eager_wall_time(ops, s.ops, step_host);
  }
  // A graph step's host time: before the GPU can start the graph, the host launches it. Fused:
  // cudaGraphLaunch submits each kernel node (graph_launch_per_node; validation/results/
  // h200-fused-step-alone: 55-765 us in graph.replay() for 245-451 nodes). Compiled: dynamo's guards,
  // the cudagraph tree's checks and input copies, then the launch (graph_call_host; h200-host-probe:
  // 256-936 us before CUDAGraph.replay, not following the kernel count). A loop that synchronizes
  // every step (generate(), a harness's replay on an idle GPU) waits for it, so the wall adds it;
  // a serving engine launches the next graph while this one runs: its step is time_s - host_time_s
  // (docs/model.md, "graph replay gap").
  if (impl != Impl::eager) {
    double nodes = 0, inputs = 0;
    for (const Op* op : ops) {
      nodes += static_cast<double>(op->launches * op->count);
      inputs += static_cast<double>(op->graph_inputs * op->count);
    }
    // Compiled (branch hostreplay): dynamo's bytecode gathers every static input and its guards
    // check them, AOT's and the cudagraph tree's wrappers walk them (h200-chost14 run2: each stage
    // grows with the inputs); graph_call_host_per_input prices that on top of the call's fixed part.
    const double host = roofs.graph_call_host_s + roofs.graph_call_host_per_input_s * inputs +
                        roofs.graph_launch_per_node_s * nodes;
    s.host_time_s += host;
    s.time_s += host;
  }
  for (size_t i = 0; i < s.ops.size(); ++i) s.ops[i].time_band = op_time_band(*ops[i], s.ops[i].time_s, roofs);
  s.time_band = step_time_band(ops, s, roofs);
  s.bound = Bound::memory;
  if (s.compute_time_s > s.memory_time_s && s.compute_time_s > s.overhead_time_s) s.bound = Bound::compute;
  if (s.overhead_time_s > s.memory_time_s && s.overhead_time_s > s.compute_time_s) s.bound = Bound::overhead;
  return s;
}

}  // namespace perfmodel
