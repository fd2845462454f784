// hardware/*.yaml -> Card (docs/catalogue-schema.md).
#include <cmath>

#include "perfmodel/catalogue.hpp"
#include "catalogue/yaml_reader.hpp"
#include "catalogue/interconnect_loader.hpp"

namespace perfmodel {

namespace {

using detail::MapReader;
using detail::kIntMax;

// Upper bounds of a card's numbers, checked after the unit is applied (issue 14: a card with
// 2e9 SMs took 70 s, 2^31 SMs crashed, a 1e308 GiB memory printed a negative batch). Each sits
// far above any GPU built or announced (B200: 148 SMs, 8 TB/s, 192 GB, 2.25 PFLOP/s dense fp8)
// so that only nonsense is refused, and low enough that every product the model forms of them
// stays finite and every count fits the int it is stored in.
constexpr int64_t kMaxSms = 100000;
constexpr int64_t kMaxUnitsPerSm = 100000;
constexpr int64_t kMaxThreads = 1 << 20;  // threads, warps, blocks, registers per SM or block
constexpr int64_t kMaxWarpSize = 1024;
constexpr double kMaxClockHz = 1e11;
constexpr double kMaxFlops = 1e21;
constexpr double kMaxBytes = 1e18;        // capacity, L2, shared memory
constexpr double kMaxBandwidth = 1e18;
constexpr double kMaxBusBits = 1e7;
constexpr double kMaxDataRate = 1e13;
constexpr double kMaxLaunchOverhead = 1.0;  // seconds
constexpr double kMaxFmaPerClock = 1e7;

void read_peaks(MapReader peaks, Card& c) {
  for (int i = 0; i < kPrecisionCount; ++i) {
    auto p = static_cast<Precision>(i);
    if (auto v = peaks.opt_quantity(std::string(to_string(p)), Dimension::flop_per_s, false, kMaxFlops)) c.peak[i] = *v;
  }
  peaks.finish();
}

void read_fma(MapReader fma, Card& c) {
  for (int i = 0; i < kPrecisionCount; ++i) {
    auto p = static_cast<Precision>(i);
    if (!is_tensor(p)) continue;
    if (auto v = fma.opt_number(std::string(to_string(p)), 0, kMaxFmaPerClock)) {
      if (*v <= 0) fma.fail(std::string(to_string(p)), "must be positive");
      c.tensor_fma_per_clock[i] = *v;
    }
  }
  fma.finish();
}

// Derives what units x clock allow and checks it against the stated peaks (2 % tolerance).
void derive_and_check(Card& c) {
  for (int i = 0; i < kPrecisionCount; ++i) {
    auto p = static_cast<Precision>(i);
    double d = 0;
    if (is_tensor(p) && c.tensor_fma_per_clock[i] > 0)
      d = derive_tensor_peak(c.sm_count, c.tensor_cores_per_sm, c.tensor_fma_per_clock[i], c.tensor_clock_hz);
    else if (p == Precision::fp32 && c.fp32_lanes_per_sm > 0)
      d = derive_lane_peak(c.sm_count, c.fp32_lanes_per_sm, c.cuda_clock_hz);
    else if (p == Precision::fp64 && c.fp64_lanes_per_sm > 0)
      d = derive_lane_peak(c.sm_count, c.fp64_lanes_per_sm, c.cuda_clock_hz);
    c.derived_peak[i] = d;
    if (d <= 0) continue;
    if (c.peak[i] <= 0) {
      c.peak[i] = d;
    } else if (std::fabs(d / c.peak[i] - 1) > 0.02) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "%s: %s peak derived from units x clock is %.1f TFLOP/s, the stated value %.1f "
                    "(%+.1f %%)",
                    c.source_file.c_str(), std::string(to_string(p)).c_str(), d / 1e12,
                    c.peak[i] / 1e12, (d / c.peak[i] - 1) * 100);
      c.warnings.emplace_back(buf);
    }
  }
}

}  // namespace

Card load_card_file(const std::string& path) {
  MapReader r(detail::load_file(path), path, "");
  Card c;
  c.source_file = path;
  c.name = r.str("name");
  c.vendor = r.str("vendor");
  c.architecture = r.str("architecture");
  c.compute_capability = r.str("compute_capability");
  c.cuda_name = r.opt_str("cuda_name").value_or("");
  c.sm_count = static_cast<int>(r.integer("sm_count", 1, kMaxSms));
  {
    MapReader clocks = r.map("clocks");
    c.tensor_clock_hz = clocks.quantity("tensor", Dimension::hertz, kMaxClockHz);
    c.cuda_clock_hz = clocks.quantity("cuda_core", Dimension::hertz, kMaxClockHz);
    clocks.finish();
  }
  {
    MapReader u = r.map("units_per_sm");
    c.tensor_cores_per_sm = static_cast<int>(u.integer("tensor_cores", 0, kMaxUnitsPerSm));
    c.fp32_lanes_per_sm = static_cast<int>(u.integer("fp32_lanes", 1, kMaxUnitsPerSm));
    c.fp64_lanes_per_sm = static_cast<int>(u.opt_integer("fp64_lanes", 0, kMaxUnitsPerSm).value_or(0));
    u.finish();
  }
  if (auto fma = r.opt_map("tensor_fma_per_clock")) read_fma(*fma, c);
  read_peaks(r.map("peaks"), c);
  {
    MapReader m = r.map("memory");
    c.memory_bytes = m.quantity("capacity", Dimension::bytes, kMaxBytes);
    c.bus_width_bits = m.quantity("bus_width", Dimension::bits, kMaxBusBits);
    c.data_rate_bps = m.quantity("data_rate", Dimension::bits_per_s, kMaxDataRate);
    if (auto bw = m.opt_quantity("bandwidth", Dimension::bytes_per_s, false, kMaxBandwidth)) {
      c.bandwidth = *bw;
    } else {
      c.bandwidth = derive_bandwidth(c.bus_width_bits, c.data_rate_bps);
      c.bandwidth_derived = true;
    }
    c.l2_bytes = m.quantity("l2", Dimension::bytes, kMaxBytes);
    m.finish();
  }
  {
    MapReader s = r.map("sm_limits");
    SmLimits& l = c.limits;
    l.shared_memory_per_sm = s.quantity("shared_memory_per_sm", Dimension::bytes, kMaxBytes);
    l.shared_memory_per_block = s.quantity("shared_memory_per_block", Dimension::bytes, kMaxBytes);
    l.reserved_shared_memory_per_block =
        s.opt_quantity("reserved_shared_memory_per_block", Dimension::bytes, true, kMaxBytes).value_or(0);
    l.registers_per_sm = static_cast<int>(s.integer("registers_per_sm", 1, kMaxThreads));
    l.max_registers_per_thread = static_cast<int>(s.integer("max_registers_per_thread", 1, kMaxThreads));
    l.max_threads_per_sm = static_cast<int>(s.integer("max_threads_per_sm", 1, kMaxThreads));
    l.max_warps_per_sm = static_cast<int>(s.integer("max_warps_per_sm", 1, kMaxThreads));
    l.max_blocks_per_sm = static_cast<int>(s.integer("max_blocks_per_sm", 1, kMaxThreads));
    l.max_threads_per_block = static_cast<int>(s.integer("max_threads_per_block", 1, kMaxThreads));
    l.warp_size = static_cast<int>(s.integer("warp_size", 1, kMaxWarpSize));
    s.finish();
  }
  c.launch_overhead_s = r.quantity("launch_overhead", Dimension::seconds, kMaxLaunchOverhead);
  c.interconnect = detail::parse_interconnect(r.map("interconnect"));
  r.finish();
  derive_and_check(c);
  static_assert(kMaxThreads <= kIntMax && kMaxSms <= kIntMax && kMaxUnitsPerSm <= kIntMax);
  bool any = false;
  for (double p : c.peak) any = any || p > 0;
  if (!any) r.fail_here("no peak given or derivable");
  return c;
}

}  // namespace perfmodel
