// `--explain` for one op (issue 14): FLOPs, bytes, intensity, the nominal roofline and the
// predicted time, each with its formula, the numbers plugged in and where they come from.
// The predicted time is t = fixed + max(compute, memory) (price.cpp, docs/model.md); the kernel's
// cost function (lib/src/kernels/<kernel>.cpp) decides compute and memory, so their effective
// rates are shown as F / compute and M / memory beside the roofs they were derived from.
#include <cmath>

#include "explain_text.hpp"
#include "perfmodel/explain.hpp"
#include "perfmodel/kernel.hpp"

namespace perfmodel {

namespace {

using detail::num;

// The op's FLOPs by its kernel's formula where one applies exactly, else the kernel's count.
Explained flops_of(const Op& op) {
  Explained e{"FLOPs", "", "", op.flops, "FLOP", {}};
  const double M = static_cast<double>(op.gemm.m), N = static_cast<double>(op.gemm.n), K = static_cast<double>(op.gemm.k);
  const double b = static_cast<double>(op.gemm.batch);
  const AttentionShape& a = op.attention;
  const double ad = 4.0 * a.batch * a.heads * a.q_len * a.kv_len * a.head_dim;
  if (op.kind == OpKind::gemm && std::fabs(2 * M * N * K * b - op.flops) <= 1e-9 * op.flops) {
    e.formula = b > 1 ? "2 batch M N K" : "2 M N K";
    e.substituted = (b > 1 ? "2 × " + num(b) + " × " : "2 × ") + num(M) + " × " + num(N) + " × " + num(K);
    e.inputs.push_back("M, N, K: y[M,N] = x[M,K] · W[N,K]^T (seed 000 example 2)");
  } else if (op.kind == OpKind::attention && !a.causal && a.window == 0 && ad > 0 &&
             std::fabs(ad - op.flops) <= 1e-9 * op.flops) {
    e.formula = "4 b h q kv d";
    e.substituted = "4 × " + num(a.batch) + " × " + num(a.heads) + " × " + num(a.q_len) + " × " + num(a.kv_len) +
                    " × " + num(a.head_dim);
    e.inputs.push_back("QK^T and PV: 2 q kv d FLOPs each per head (seed 001)");
  } else {
    e.formula = "F (counted by the kernel)";
    e.substituted = num(op.flops);
    e.inputs.push_back("kernel " + std::string(kernel_def(op.kernel).name) + ": lib/src/kernels/" +
                       std::string(kernel_def(op.kernel).name) + ".cpp");
  }
  return e;
}

}  // namespace

std::vector<Explained> explain_op(const Op& op, const OpCost& c, const Roofs& r) {
  std::vector<Explained> out;
  const Card& card = r.card;
  out.push_back(flops_of(op));
  out.push_back({"bytes", "bytes read + bytes written", num(op.bytes_read) + " + " + num(op.bytes_written),
                 op.bytes(), "B", {"every tensor read and written once counted (seed 004)"}});
  if (op.bytes() > 0)
    out.push_back({"FLOP/B", "F / M", num(op.flops) + " / " + num(op.bytes()), op.intensity(), "FLOP/B", {}});
  // The seeds' roofline at the datasheet roofs (seed 000).
  const std::string card_file = card.source_file.empty() ? "card " + card.key : card.source_file;
  Explained roof{"roofline", "max(F / P_nominal, M / BW_nominal)", "", c.roofline_time_s, "s", {}};
  const double p_nom = op.flops > 0 ? card.peak_flops(op.precision) : 0;
  roof.substituted = "max(" + (p_nom > 0 ? num(op.flops) + " / " + num(p_nom) : std::string("0")) + ", " +
                     num(op.bytes()) + " / " + num(card.bandwidth) + ")";
  if (p_nom > 0)
    roof.inputs.push_back("P_nominal = " + num(p_nom) + " FLOP/s: " + card_file + " peak " +
                          std::string(to_string(op.precision)));
  roof.inputs.push_back("BW_nominal = " + num(card.bandwidth) + " B/s: " + card_file + " memory bandwidth");
  out.push_back(roof);
  // The prediction.
  const double busy = std::max(c.compute_time_s, c.memory_time_s);
  const double fixed = c.device_time_s - busy;
  Explained dev{"device time", "fixed + max(compute, memory)",
                num(fixed) + " + max(" + num(c.compute_time_s) + ", " + num(c.memory_time_s) + ")", c.device_time_s, "s", {}};
  if (c.compute_time_s > 0 && op.flops > 0) {
    const int pi = static_cast<int>(op.precision);
    dev.inputs.push_back("compute = F / " + num(op.flops / c.compute_time_s) + " FLOP/s effective; the roof: " +
                         num(r.peak[pi]) + " FLOP/s (" + r.source("gemm_peak." + std::string(to_string(op.precision))) + ")");
  }
  if (c.tiling) {
    const TilePlan& t = *c.tiling;
    dev.inputs.push_back("tiles " + std::to_string(t.tile.m) + "x" + std::to_string(t.tile.n) + ": " +
                         std::to_string(t.tiles) + " CTAs in " + std::to_string(t.waves) + " waves over " +
                         std::to_string(card.sm_count) + " SMs, wave efficiency " + num(t.wave_efficiency) +
                         (t.split_k > 1 ? ", split-K " + std::to_string(t.split_k) : "") + " (seed 003)");
  }
  if (c.memory_time_s > 0 && op.bytes() > 0)
    dev.inputs.push_back("memory = M / " + num(op.bytes() / c.memory_time_s) + " B/s effective; the roofs: read " +
                         num(r.read_bandwidth) + " B/s (" + r.source("read_bandwidth") + "), write " +
                         num(r.write_bandwidth) + " B/s (" + r.source("write_bandwidth") + ")");
  if (!c.fixed_parts.empty()) {  // the kernel's own floors (a profile's measured ones), term by term
    std::string terms;
    for (const FixedPart& f : c.fixed_parts)
      terms += (terms.empty() ? "" : " + ") + f.what + " " + num(f.seconds) + " s (" + r.source(f.source_key) + ")";
    dev.inputs.push_back("fixed = " + terms);
  } else
  dev.inputs.push_back("fixed = launch floor and dependent-sweep latencies: kernel floor " + num(r.kernel_floor_s) +
                       " s (" + r.source("kernel_floor") + "), pass latency " + num(r.pass_latency_s) + " s (" +
                       r.source("pass_latency") + ")" +
                       (op.kind == OpKind::gemm ? ", GEMM fixed " + num(r.gemm_fixed_s) + " s (" + r.source("gemm_fixed") + ")" : ""));
  out.push_back(dev);
  if (c.host_time_s > 0 && r.host_per_aten_s && r.host_per_aten_view_s) {
    out.push_back({"host time",
                   "launching ATen ops × host per launching op + other ATen ops × host per view + nn.Module calls × "
                   "host per module",
                   num(op.aten_launching_calls()) + " × " + num(*r.host_per_aten_s) + " + " +
                       num(op.aten_other_calls()) + " × " + num(*r.host_per_aten_view_s) + " + " +
                       num(op.module_calls) + " × " + num(r.host_per_module_s.value_or(0)),
                   c.host_time_s, "s",
                   {"the profile's host_per_aten, host_per_aten_view (branch hostaten) and host_per_module"}});
  } else if (c.host_time_s > 0 && r.host_per_aten_s) {
    out.push_back({"host time", "ATen ops × host per ATen op + nn.Module calls × host per module",
                   num(op.aten_calls()) + " × " + num(*r.host_per_aten_s) + " + " + num(op.module_calls) + " × " +
                       num(r.host_per_module_s.value_or(0)),
                   c.host_time_s, "s", {"the profile's host_per_aten and host_per_module (branch hostmod2)"}});
  } else if (c.host_time_s > 0) {
    const double per_launch = r.host_per_kernel_s.value_or(r.host_launch_s);
    out.push_back({"host time", "launches × host per launch + framework calls × view",
                   num(op.launches) + " × " + num(per_launch) + " + " + num(op.framework_calls) + " × " + num(r.eager_view_s),
                   c.host_time_s, "s",
                   {"host per launch: " + (r.host_per_kernel_s ? "the profile's host_per_kernel"
                                                                   : r.source(r.sources.count("eager_dispatch") ? "eager_dispatch" : "host_launch")),
                    "view: " + r.source("eager_view")}});
  }
  if (c.host_time_s > 0) {
    const double longer = std::max(c.device_time_s, c.host_time_s);
    if (std::fabs(longer - c.time_s) <= 1e-9 * c.time_s)
      out.push_back({"time", "max(device time, host time)", "max(" + num(c.device_time_s) + ", " + num(c.host_time_s) + ")",
                     c.time_s, "s", {"eager: the host issues every kernel; the GPU cannot run ahead of it"}});
    else  // several kernels: each starts when both the host has issued it and the GPU is free
      out.push_back({"time", "kernel by kernel: start = max(host issued, previous kernel done)", num(c.time_s), c.time_s, "s",
                     {"eager: the host's launches and the GPU's kernels overlap one kernel at a time (combine_step, price.hpp)"}});
  } else if (std::fabs(c.time_s - c.device_time_s) > 1e-12 * std::max(1.0, c.time_s)) {
    out.push_back({"time", "kernel's own composite price", num(c.time_s), c.time_s, "s",
                   {"kernel " + std::string(kernel_def(op.kernel).name) + " prices its launches one by one"}});
  }
  return out;
}

}  // namespace perfmodel
