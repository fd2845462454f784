#include "perfmodel/calibration_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "perfmodel/decode_attention.hpp"
#include "perfmodel/gemm_tiling.hpp"
#include "perfmodel/instructions.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "calibration_fit_parts.hpp"

namespace perfmodel {

RampFit fit_ramp(const std::vector<std::pair<double, double>>& pts) {
  RampFit f;
  f.points = static_cast<int>(pts.size());
  if (pts.size() < 2) return f;
  Eigen::MatrixXd A(pts.size(), 2);
  Eigen::VectorXd y(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    const double w = 1.0 / pts[i].second;  // relative error
    A(static_cast<Eigen::Index>(i), 0) = w;
    A(static_cast<Eigen::Index>(i), 1) = pts[i].first * w;
    y(static_cast<Eigen::Index>(i)) = 1.0;
  }
  Eigen::Vector2d x = A.colPivHouseholderQr().solve(y);
  f.t0_s = std::max(0.0, x(0));
  f.bandwidth = x(1) > 0 ? 1.0 / x(1) : 0;
  double s = 0;
  for (const auto& [b, t] : pts) {
    const double pred = f.t0_s + (f.bandwidth > 0 ? b / f.bandwidth : 0);
    s += (pred / t - 1) * (pred / t - 1);
  }
  f.rms_relative_error = std::sqrt(s / static_cast<double>(pts.size()));
  return f;
}

Calibration fit_calibration(const RawCalibration& raw, const Card& card) {
  Calibration c;
  c.card_key = card.key;
  c.device_name = raw.device_name;
  c.kernel_floor_s = raw.kernel_floor_s;
  if (raw.host_launch_s > 0) c.host_launch_s = raw.host_launch_s;
  for (const RawPoint& p : raw.points) {
    // Six different kernels in one graph against each repeated alone: the excess per kernel.
    if (p.what == "kernel_switch" && p.kernels > 0 && p.alone_s > 0)
      c.kernel_switch_s = std::max(0.0, (p.seconds - p.alone_s) / p.kernels);
    if (p.what == "eager_dispatch") c.eager_dispatch_s = p.seconds;
    if (p.what == "eager_view") c.eager_view_s = p.seconds;
  }
  const RawPoint* big_copy = nullptr;
  const RawPoint* big_add = nullptr;
  std::vector<std::pair<double, double>> ramp;
  for (const RawPoint& p : raw.points) {
    if (p.what == "copy_large" && p.bytes > 0) {
      c.dram_bandwidth = std::max(c.dram_bandwidth, p.bytes / p.seconds);
      if (!big_copy || p.bytes > big_copy->bytes) big_copy = &p;
    }
    if (p.what == "add_ramp" && p.bytes > 0 && (!big_add || p.bytes > big_add->bytes)) big_add = &p;
    if (p.what == "l2_copy" && p.bytes > 0) c.l2_bandwidth = std::max(c.l2_bandwidth.value_or(0), p.bytes / p.seconds);
    if (p.what == "copy_ramp" && p.bytes > 0) ramp.emplace_back(p.bytes, p.seconds);
  }
  // Reads and writes: a copy moves half writes, an add a third. Two equations, two rates
  // (1/BW_read, 1/BW_write); sizes far beyond L2 so both are DRAM streams.
  double inv_r = c.dram_bandwidth > 0 ? 1 / c.dram_bandwidth : 0, inv_w = inv_r;
  if (big_copy && big_add) {
    Eigen::Matrix2d A;
    A << big_copy->bytes / 2, big_copy->bytes / 2, big_add->bytes * 2 / 3, big_add->bytes / 3;
    Eigen::Vector2d t(big_copy->seconds, big_add->seconds);
    Eigen::Vector2d x = A.colPivHouseholderQr().solve(t);
    if (x(0) > 0 && x(1) > 0) inv_r = x(0), inv_w = x(1);
  }
  if (inv_r > 0) {
    c.read_bandwidth = 1 / inv_r;
    c.write_bandwidth = 1 / inv_w;
  }
  auto mem = [&](double read, double written) { return read * inv_r + written * inv_w; };
  // One sweep's fixed cost: what a mid-size copy (64 KiB .. 64 MiB) takes beyond its bytes and
  // the launch floor.
  std::vector<double> excess;
  for (const auto& [b, t] : ramp)
    if (b >= 65536 && b <= 67108864) excess.push_back(t - mem(b / 2, b / 2) - c.kernel_floor_s);
  if (!excess.empty()) c.pass_latency_s = std::max(0.0, upper_median(excess));
  const double pass_latency = c.pass_latency_s.value_or(0);
  // The same over L2-resident data: the ramp's smallest copy, whose rotating buffer sets (up to
  // 1000 of them, validation harness) stay within half of L2.
  const std::pair<double, double>* smallest = nullptr;
  for (const auto& pt : ramp)
    if (!smallest || pt.first < smallest->first) smallest = &pt;
  if (smallest && 1000 * smallest->first <= card.l2_bytes / 2 && c.l2_bandwidth > 0)
    c.l2_pass_latency_s = std::max(0.0, smallest->second - c.kernel_floor_s - smallest->first / *c.l2_bandwidth);
  // GEMM: t = floor + g0 + g1 K/1024 + max(compute, bytes / (kappa x read rate)). Three
  // parameters, fitted on the M ramp (M = 1 .. 4096 at N = K = 4096; the compute-bound end pins
  // g0) and the K/N ramps of weight-streaming GEMMs (g1 and kappa). The peak is re-derived for
  // every g0 so the model reproduces the large square it was measured on. Grid search over
  // relative squared error.
  std::vector<const RawPoint*> ramp_pts;
  const RawPoint* bf16_peak = nullptr;
  for (const RawPoint& p : raw.points) {
    if ((p.what == "gemm_m_ramp" || p.what == "gemm_k_ramp") && p.dtype == "bf16") ramp_pts.push_back(&p);
    if (p.what == "gemm_peak" && p.dtype == "bf16") bf16_peak = &p;
  }
  auto peak_for = [&](const RawPoint& p, double fixed) {
    auto prec = precision_from_string(p.dtype);
    const double nominal = card.peak[static_cast<int>(*prec)];
    const TilePlan plan = fit_gemm_plan(card, p.m, p.n, p.k, 1, nominal);
    const double busy = std::max(p.seconds - fixed, p.seconds * 0.5);
    // plan.compute_time_s = busiest SM's tiles at nominal: invert for the effective peak.
    return nominal * plan.compute_time_s / busy;
  };
  // gemm_fixed, gemm_fixed_per_1024_k and gemm_stream_efficiency: not measured unless the ramps are there.
  if (!ramp_pts.empty() && bf16_peak) {
    const double nominal = card.peak[static_cast<int>(Precision::bf16)];
    struct Pre { double compute_nominal, bytes_time, k_per_cta, seconds; };
    std::vector<Pre> pre;
    for (const RawPoint* p : ramp_pts) {
      const TilePlan plan = fit_gemm_plan(card, p->m, p->n, p->k, 1, nominal);
      const double M = static_cast<double>(p->m), N = static_cast<double>(p->n), K = static_cast<double>(p->k);
      // A split-K plan pays its reduction kernel (floor + one sweep) on top.
      const double reduce = plan.split_k > 1 ? c.kernel_floor_s + pass_latency : 0.0;
      pre.push_back({plan.compute_time_s, (M * K + N * K) * 2 * inv_r + M * N * 2 * inv_w,
                     plan.k_per_cta / 1024.0, p->seconds - reduce});
    }
    double best_err = -1;
    for (double g0 = 0; g0 <= 6e-6; g0 += 0.1e-6) {
      for (double g1 = 0; g1 <= 2e-6; g1 += 0.05e-6) {
        // The peak square walks K = 8192: its own fixed cost includes g1 x 8.
        const double scale_k = nominal / peak_for(*bf16_peak, c.kernel_floor_s + g0 + g1 *
                                                                      fit_gemm_plan(card, bf16_peak->m, bf16_peak->n, bf16_peak->k, 1, nominal).k_per_cta / 1024.0);
        for (double kappa = 0.7; kappa <= 1.0001; kappa += 0.01) {
          double err = 0;
          for (const Pre& q : pre) {
            const double t = c.kernel_floor_s + g0 + g1 * q.k_per_cta + std::max(q.compute_nominal * scale_k, q.bytes_time / kappa);
            err += (t / q.seconds - 1) * (t / q.seconds - 1);
          }
          if (best_err < 0 || err < best_err) {
            best_err = err;
            c.gemm_fixed_s = g0;
            c.gemm_fixed_per_k_s = g1;
            c.gemm_stream_efficiency = kappa;
          }
        }
      }
    }
  }
  // Peaks per SM slot: the compute part of the measurement over the shape's busiest-SM work,
  // so the model reproduces the calibration shape and carries the rate to other shapes.
  for (const RawPoint& p : raw.points) {
    if (p.what != "gemm_peak" || p.m <= 0) continue;
    auto prec = precision_from_string(p.dtype);
    if (!prec || card.peak[static_cast<int>(*prec)] <= 0) continue;
    const double k_walk = fit_gemm_plan(card, p.m, p.n, p.k, 1, card.peak[static_cast<int>(*prec)]).k_per_cta;
    const double fixed = c.kernel_floor_s + c.gemm_fixed_s.value_or(0) + c.gemm_fixed_per_k_s.value_or(0) * k_walk / 1024.0;
    auto& slot = c.gemm_peak[static_cast<int>(*prec)];
    slot = std::max(slot.value_or(0), peak_for(p, fixed));
  }
  fit_prefill_attention(raw, card, c);
  // Flash-decoding: t = floor + split kernel (waves of the KV stream and the busiest SM's CTA
  //                    chain, overlapped as (stream^n + chain^n)^(1/n)) + [splits > 1] (floor +
  //                    combine); three parameters (first-tile wait, combine per split, n), grid
  //                    search on the decode ramp (shapes outside the kernel suite;
  //                    decode_attention.hpp).
  std::vector<const RawPoint*> dec;
  for (const RawPoint& p : raw.points)
    if (p.what == "decode_ramp" && p.batch > 0 && p.kv_heads > 0) dec.push_back(&p);
  if (!dec.empty()) {
    std::vector<DecodeSplit> plans;
    std::vector<double> kv;
    for (const RawPoint* p : dec) {
      plans.push_back(plan_decode_split(p->batch, p->heads, p->kv_heads, p->kv_len, p->head_dim, card));
      kv.push_back(2.0 * p->batch * p->kv_heads * p->kv_len * p->head_dim * 2);
    }
    double best = -1;
    DecodeCosts k;
    // The cycles per instruction are Nsight Compute's readings on this kernel (4.1 alone, about
    // +1.8 per further CTA on the SM; DefaultEfficiency), not fitted: a free fit trades them
    // against the overlap and lands below what the hardware reports.
    k.cpi = DefaultEfficiency::decode_cpi;
    k.cpi_per_cta = DefaultEfficiency::decode_cpi_per_cta;
    for (double n : {0.0, 8.0, 6.0, 4.0, 3.0, 2.0, 1.5, 1.0})
      for (k.cta_fixed_s = 0; k.cta_fixed_s <= 3e-6; k.cta_fixed_s += 0.25e-6)
        for (k.combine_split_s = 0; k.combine_split_s <= 0.4e-6; k.combine_split_s += 0.02e-6) {
          k.overlap = n;
          double err = 0;
          for (size_t i = 0; i < dec.size(); ++i) {
            double t = c.kernel_floor_s + decode_split_time(plans[i], kv[i], 1 / inv_r, card, k);
            if (plans[i].splits > 1) t += c.kernel_floor_s + decode_combine_time(plans[i], pass_latency, k);
            err += (t / dec[i]->seconds - 1) * (t / dec[i]->seconds - 1);
          }
          if (best < 0 || err < best) {
            best = err;
            c.decode = DecodeCalibration{k.cpi, k.cpi_per_cta, k.cta_fixed_s, k.combine_split_s, k.overlap};
          }
        }
  }
  // Issue: fused softmaxes of counted instructions (perfmodel/instructions.hpp) run issue-bound;
  // their busy time (beyond the floor and the two sweeps' latency) over the card's issue slots
  // gives the share of slots such kernels keep busy.
  std::vector<double> shares;
  const double slots = issue_slots_per_second(card);
  for (const RawPoint& p : raw.points) {
    if (p.what != "issue_softmax" || p.m <= 0 || p.n <= 0 || slots <= 0) continue;
    const double warp_instructions =
        kernel_instructions(KernelId::softmax_fused, p.m, p.n, DType::bf16) / card.limits.warp_size;
    const double busy = p.seconds - c.kernel_floor_s - 2 * pass_latency;
    if (busy > 0) shares.push_back(std::min(1.0, warp_instructions / slots / busy));
  }
  if (!shares.empty()) c.issue_efficiency = upper_median(shares);
  fit_thread_chains(raw, card, c);
  fit_l2_capacity(raw, card, c);
  fit_power_cap(raw, card, c);
  const RampFit f = fit_ramp(ramp);
  if (f.points >= 2 && f.bandwidth > 0) {
    c.ramp_bandwidth = f.bandwidth;
    c.ramp_t0_s = f.t0_s;
  }
  return c;
}

}  // namespace perfmodel
