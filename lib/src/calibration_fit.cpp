#include "perfmodel/calibration_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "perfmodel/attention_schedule.hpp"
#include "perfmodel/decode_attention.hpp"
#include "perfmodel/gemm_tiling.hpp"
#include "perfmodel/instructions.hpp"
#include "perfmodel/l2_residency.hpp"
#include "perfmodel/price.hpp"
#include "yaml_reader.hpp"

namespace perfmodel {

RawCalibration load_raw_calibration(const std::string& path) {
  YAML::Node root = detail::load_file(path);
  RawCalibration r;
  auto fail = [&](const std::string& what) { throw ConfigError(path, 0, 0, "", what); };
  if (!root.IsMap() || !root["points"] || !root["points"].IsSequence()) fail("expected an object with a 'points' list");
  if (root["device"] && root["device"]["name"]) r.device_name = root["device"]["name"].as<std::string>();
  if (root["device"] && root["device"]["driver_version"]) r.driver = root["device"]["driver_version"].as<std::string>();
  if (root["host_launch_overhead_s"]) r.host_launch_s = root["host_launch_overhead_s"].as<double>();
  if (root["min_kernel_time_s"]) r.kernel_floor_s = root["min_kernel_time_s"].as<double>();
  for (const auto& p : root["points"]) {
    RawPoint pt;
    pt.what = p["what"].as<std::string>();
    if (p["dtype"]) pt.dtype = p["dtype"].as<std::string>();
    if (p["m"]) pt.m = p["m"].as<int64_t>();
    if (p["n"]) pt.n = p["n"].as<int64_t>();
    if (p["k"]) pt.k = p["k"].as<int64_t>();
    if (p["batch"]) pt.batch = p["batch"].as<int64_t>();
    if (p["heads"]) pt.heads = p["heads"].as<int64_t>();
    if (p["kv_heads"]) pt.kv_heads = p["kv_heads"].as<int64_t>();
    if (p["kv_len"]) pt.kv_len = p["kv_len"].as<int64_t>();
    if (p["q_len"]) pt.q_len = p["q_len"].as<int64_t>();
    if (p["head_dim"]) pt.head_dim = p["head_dim"].as<int64_t>();
    if (p["bytes"]) pt.bytes = p["bytes"].as<double>();
    if (p["flops"]) pt.flops = p["flops"].as<double>();
    pt.seconds = p["seconds"].as<double>();
    if (!(pt.seconds > 0)) continue;  // a failed measurement
    auto num = [&](const char* key) { return p[key] ? p[key].as<double>() : 0.0; };
    pt.burst_seconds = num("burst_seconds"), pt.clock_mhz = num("clock_mhz"), pt.burst_clock_mhz = num("burst_clock_mhz");
    pt.power_w = num("power_w"), pt.idle_power_w = num("idle_power_w"), pt.power_limit_w = num("power_limit_w");
    pt.alone_s = num("alone_s");
    pt.kernels = p["kernels"] ? p["kernels"].as<int>() : 0;
    if (pt.what == "thread_chain" || pt.what == "l2_residency") {
      KernelCase c;
      const auto k = p["kernel"] ? kernel_from_string(p["kernel"].as<std::string>()) : std::nullopt;
      if (!k) fail("a thread_chain point needs a known 'kernel'");
      c.kernel = *k;
      auto get = [&](const char* key) { return p[key] ? p[key].as<int64_t>() : int64_t{0}; };
      c.rows = get("rows"), c.cols = get("cols"), c.vocab = get("vocab"), c.batch = get("batch");
      c.heads = get("heads"), c.kv_heads = get("kv_heads"), c.q_len = get("q_len"), c.kv_len = get("kv_len");
      c.head_dim = get("head_dim");
      c.l2_resident = p["l2_resident"] && p["l2_resident"].as<bool>();
      if (p["rotated_bytes"]) c.rotated_bytes = p["rotated_bytes"].as<double>();
      c.name = pt.what + "_" + to_string(c.kernel);
      pt.kernel = c;
    }
    r.points.push_back(pt);
  }
  return r;
}

RawCalibration load_raw_calibration(const std::vector<std::string>& paths) {
  RawCalibration all;
  for (const std::string& path : paths) {
    RawCalibration r = load_raw_calibration(path);
    if (all.device_name.empty()) all.device_name = r.device_name;
    if (all.driver.empty()) all.driver = r.driver;
    if (!(all.kernel_floor_s > 0)) all.kernel_floor_s = r.kernel_floor_s;
    if (!(all.host_launch_s > 0)) all.host_launch_s = r.host_launch_s;
    all.points.insert(all.points.end(), r.points.begin(), r.points.end());
  }
  return all;
}

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

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

namespace {

// Flash prefill: a CTA costs cta_fixed + tiles x tile(d), tile(d) = t128 x ((1 - share) d / 128 +
// share) (price.cpp). The large causal d = 128 point sets t128 for a given cta_fixed, the
// longest d != 128 point the share, and cta_fixed is scanned to fit the short-sequence points.
// Each point's busy time excludes the floor and the one sweep latency.
void fit_prefill_attention(const RawCalibration& raw, const Card& card, Calibration& c) {
  using A = CalibrationAttentionCase;
  const RawPoint* peak = nullptr;
  std::vector<const RawPoint*> shapes;
  for (const RawPoint& p : raw.points) {
    if (p.what == "attention_peak" && p.seconds > 0) peak = &p;
    if (p.what == "attention_shape" && p.seconds > 0 && p.q_len > 0 && p.head_dim > 0) shapes.push_back(&p);
  }
  if (!peak) return;
  auto busy = [&](double seconds) { return std::max(seconds - c.kernel_floor_s - c.pass_latency_s, seconds * 0.5); };
  auto critical = [&](int64_t b, int64_t h, int64_t q, double fixed, double tile) {
    return prefill_attention_critical_s(b, h, q, q, true, 0, card.sm_count, fixed, tile);
  };
  // The tile time at which a shape takes `target`. The makespan is close to linear in the tile
  // time (fixed x CTAs + tile x tiles on the busiest SM): a Newton step on that line, repeated,
  // settles in a few schedules (each is a list scheduling of thousands of CTAs).
  auto tile_for = [&](int64_t b, int64_t h, int64_t q, double fixed, double target) {
    double t = target / 10;
    for (int i = 0; i < 12; ++i) {
      const double at_t = critical(b, h, q, fixed, t), at_0 = critical(b, h, q, fixed, 0.0);
      if (at_t <= at_0) break;
      const double next = std::max(0.0, t * (target - at_0) / (at_t - at_0));
      if (std::fabs(next - t) <= 1e-6 * t) return next;
      t = next;
    }
    return t;
  };
  const RawPoint* share_pt = nullptr;
  for (const RawPoint* p : shapes)
    if (p->head_dim != 128 && (!share_pt || p->q_len > share_pt->q_len)) share_pt = p;
  double best = -1, best_fixed = 0, best_t128 = 0, best_share = -1;
  const bool scan = share_pt && shapes.size() > 1;
  for (double fixed = 0; fixed <= (scan ? 3e-6 : 0); fixed += 0.02e-6) {
    const double t128 = tile_for(A::batch, A::heads, A::seq, fixed, busy(peak->seconds));
    double share = -1;
    if (share_pt) {
      const double td = tile_for(share_pt->batch, share_pt->heads, share_pt->q_len, fixed, busy(share_pt->seconds));
      const double x = static_cast<double>(share_pt->head_dim) / 128.0;
      share = std::clamp((td / t128 - x) / (1 - x), 0.0, 1.0);  // td = t128 ((1 - s) x + s)
    }
    double err = 0;
    for (const RawPoint* p : shapes) {
      if (p == share_pt) continue;
      const double s = std::max(share, 0.0);
      const double tile = t128 * ((1 - s) * static_cast<double>(p->head_dim) / 128.0 + s);
      const double pred = critical(p->batch, p->heads, p->q_len, fixed, tile);
      err += (pred / busy(p->seconds) - 1) * (pred / busy(p->seconds) - 1);
    }
    if (best < 0 || err < best) best = err, best_fixed = fixed, best_t128 = t128, best_share = share;
  }
  c.attention_peak = 4.0 * kAttentionTile * kAttentionTile * 128.0 * card.sm_count / best_t128;
  if (scan) c.attention_cta_fixed_s = best_fixed;
  if (best_share >= 0) c.attention_softmax_share = best_share;
}

}  // namespace

Calibration fit_calibration(const RawCalibration& raw, const Card& card) {
  Calibration c;
  c.card_key = card.key;
  c.device_name = raw.device_name;
  c.kernel_floor_s = raw.kernel_floor_s;
  c.host_launch_s = raw.host_launch_s;
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
    if (p.what == "l2_copy" && p.bytes > 0) c.l2_bandwidth = std::max(c.l2_bandwidth, p.bytes / p.seconds);
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
  c.pass_latency_s = std::max(0.0, median(excess));
  // The same over L2-resident data: the ramp's smallest copy, whose rotating buffer sets (up to
  // 1000 of them, validation harness) stay within half of L2.
  const std::pair<double, double>* smallest = nullptr;
  for (const auto& pt : ramp)
    if (!smallest || pt.first < smallest->first) smallest = &pt;
  if (smallest && 1000 * smallest->first <= card.l2_bytes / 2 && c.l2_bandwidth > 0)
    c.l2_pass_latency_s = std::max(0.0, smallest->second - c.kernel_floor_s - smallest->first / c.l2_bandwidth);
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
    const TilePlan plan = gemm_plan(card, p.m, p.n, p.k, 1, nominal);
    const double busy = std::max(p.seconds - fixed, p.seconds * 0.5);
    // plan.compute_time_s = busiest SM's tiles at nominal: invert for the effective peak.
    return nominal * plan.compute_time_s / busy;
  };
  c.gemm_fixed_s = -1;  // not measured unless the ramps are there
  c.gemm_fixed_per_k_s = -1;
  c.gemm_stream_efficiency = 1;
  if (!ramp_pts.empty() && bf16_peak) {
    const double nominal = card.peak[static_cast<int>(Precision::bf16)];
    struct Pre { double compute_nominal, bytes_time, k_per_cta, seconds; };
    std::vector<Pre> pre;
    for (const RawPoint* p : ramp_pts) {
      const TilePlan plan = gemm_plan(card, p->m, p->n, p->k, 1, nominal);
      const double M = static_cast<double>(p->m), N = static_cast<double>(p->n), K = static_cast<double>(p->k);
      // A split-K plan pays its reduction kernel (floor + one sweep) on top.
      const double reduce = plan.split_k > 1 ? c.kernel_floor_s + c.pass_latency_s : 0.0;
      pre.push_back({plan.compute_time_s, (M * K + N * K) * 2 * inv_r + M * N * 2 * inv_w,
                     plan.k_per_cta / 1024.0, p->seconds - reduce});
    }
    double best_err = -1;
    for (double g0 = 0; g0 <= 6e-6; g0 += 0.1e-6) {
      for (double g1 = 0; g1 <= 2e-6; g1 += 0.05e-6) {
        // The peak square walks K = 8192: its own fixed cost includes g1 x 8.
        const double scale_k = nominal / peak_for(*bf16_peak, c.kernel_floor_s + g0 + g1 *
                                                                      gemm_plan(card, bf16_peak->m, bf16_peak->n, bf16_peak->k, 1, nominal).k_per_cta / 1024.0);
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
    const double k_walk = gemm_plan(card, p.m, p.n, p.k, 1, card.peak[static_cast<int>(*prec)]).k_per_cta;
    const double fixed = c.kernel_floor_s + std::max(0.0, c.gemm_fixed_s) + std::max(0.0, c.gemm_fixed_per_k_s) * k_walk / 1024.0;
    auto& slot = c.gemm_peak[static_cast<int>(*prec)];
    slot = std::max(slot, peak_for(p, fixed));
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
            if (plans[i].splits > 1) t += c.kernel_floor_s + decode_combine_time(plans[i], c.pass_latency_s, k);
            err += (t / dec[i]->seconds - 1) * (t / dec[i]->seconds - 1);
          }
          if (best < 0 || err < best) {
            best = err;
            c.decode = k;
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
    const double busy = p.seconds - c.kernel_floor_s - 2 * c.pass_latency_s;
    if (busy > 0) shares.push_back(std::min(1.0, warp_instructions / slots / busy));
  }
  if (!shares.empty()) c.issue_efficiency = median(shares);
  // Thread chains: a tiny L2-resident launch of each small kernel, over what the model gives it
  // without one (floor, its sweeps' L2 round trips, its bytes at the L2 rate). The copy's own
  // chain is inside the L2 sweep latency, so this is the chain beyond a copy's; per iteration of
  // the thread's loop (row kernels walk a row in several). Mean over the kernel's points (shapes
  // outside the kernel suite).
  {
    Calibration base = c;
    base.thread_chain_s.fill(0.0);
    const Roofs roofs = make_roofs(card, &base);
    std::array<double, kKernelIdCount> sum{};
    std::array<int, kKernelIdCount> n{};
    for (const RawPoint& p : raw.points) {
      if (p.what != "thread_chain" || !p.kernel) continue;
      const Op op = to_op_on(*p.kernel, card.l2_bytes / 2);  // hot: one buffer set
      const auto i = static_cast<size_t>(op.kernel);
      sum[i] += (p.seconds - price(op, roofs, Impl::fused).time_s) /
                static_cast<double>(thread_iterations(op.kernel, op.cols, op.dtype));
      ++n[i];
    }
    for (size_t i = 0; i < sum.size(); ++i)
      if (n[i] > 0) c.thread_chain_s[i] = std::max(0.0, sum[i] / n[i]);
  }
  // L2 residency: copies whose cycled buffer sets straddle the L2's size. Each point's share of
  // hits is where its time falls between the model's all-L2 and all-DRAM prices; the capacity of
  // l2_residency.hpp is the one whose hit curve fits those shares best (least squares, scanned
  // in 0.25 MB steps from 1/8 to 2 x L2).
  {
    const Roofs roofs = make_roofs(card, &c);
    std::vector<std::pair<double, double>> shares;  // (cycled bytes, hit share)
    for (const RawPoint& p : raw.points) {
      if (p.what != "l2_residency" || !p.kernel || !(p.kernel->rotated_bytes > 0)) continue;
      Op op = to_op(*p.kernel);
      op.l2_hit = 1;
      const double hot = price(op, roofs, Impl::fused).time_s;
      op.l2_hit = 0;
      const double cold = price(op, roofs, Impl::fused).time_s;
      if (cold > hot) shares.emplace_back(p.kernel->rotated_bytes, std::clamp((cold - p.seconds) / (cold - hot), 0.0, 1.0));
    }
    double best = -1;
    for (double cap = card.l2_bytes / 8; cap <= 2 * card.l2_bytes && !shares.empty(); cap += 0.25e6) {
      double err = 0;
      for (const auto& [w, h] : shares) err += (cyclic_l2_hit(w, cap) - h) * (cyclic_l2_hit(w, cap) - h);
      if (best < 0 || err < best) best = err, c.l2_cyclic_capacity = cap;
    }
  }
  // Power cap: a large GEMM sustained back to back settles at the clock where the board meets
  // its cap. Its time against a rested burst is the clock scale phi_s (time ~ 1/f for a
  // compute-bound GEMM; a burst below the full clock is scaled up to it), and at the cap
  // idle + tensor x phi_s^3 = limit (power.hpp) gives the tensor draw at full clock.
  for (const RawPoint& p : raw.points) {
    if (p.what != "sustained_gemm" || !(p.burst_seconds > 0) || !(p.power_limit_w > 0)) continue;
    const double f_max = card.cuda_clock_hz / 1e6;
    const double burst_scale = p.burst_clock_mhz > 0 && f_max > 0 ? std::min(1.0, p.burst_clock_mhz / f_max) : 1.0;
    const double phi = std::min(1.0, p.burst_seconds * burst_scale / p.seconds);
    c.sustained_clock_scale = phi;
    if (phi < 0.999 && p.power_limit_w > p.idle_power_w) {
      c.power.limit_w = p.power_limit_w;
      c.power.idle_w = p.idle_power_w;
      c.power.tensor_w = (p.power_limit_w - p.idle_power_w) / (phi * phi * phi);
    }
  }
  const RampFit f = fit_ramp(ramp);
  if (f.points >= 2 && f.bandwidth > 0) {
    c.ramp_bandwidth = f.bandwidth;
    c.ramp_t0_s = f.t0_s;
  }
  return c;
}

}  // namespace perfmodel
