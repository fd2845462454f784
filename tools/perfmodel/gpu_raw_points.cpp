// Calibration points in memory and, on request, as the backend's raw JSON (gpu_raw_points.hpp).
#include "gpu_raw_points.hpp"

#include <cmath>
#include <cstdio>

#include "perfmodel/errors.hpp"

namespace perfmodel::cli {

namespace v = perfmodel::validation;

RawCalibration raw_from_backend(const v::CalibrationData& d) {
  RawCalibration r;
  r.device_name = d.device.name;
  r.driver = d.device.driver_version;
  r.host_launch_s = d.host_launch_overhead_s;
  r.kernel_floor_s = d.min_kernel_time_s;
  for (const v::CalibrationPoint& p : d.points) {
    if (!(p.seconds > 0)) continue;
    RawPoint pt;
    pt.what = p.what;
    pt.dtype = std::string(to_string(p.dtype));
    pt.m = p.m, pt.n = p.n, pt.k = p.k;
    pt.bytes = static_cast<double>(p.bytes);
    pt.seconds = p.seconds;
    r.points.push_back(pt);
  }
  return r;
}

KernelCase raw_kernel_case(const std::string& what, const v::Case& c, double rotated_bytes) {
  KernelCase k = c;  // the backend's case is the library's, plus the spin kernel's time
  k.rotated_bytes = rotated_bytes;
  k.name = what + "_" + to_string(k.kernel);  // as load_raw_calibration names it
  return k;
}

namespace {

// "key":value pairs in the order given; numbers as %.9g (integers exactly), as the backend writes them.
struct JsonPoint {
  std::string text = "{";
  JsonPoint& raw(const char* key, const std::string& value) {
    if (text.size() > 1) text += ',';
    text += '"';
    text += key;
    text += "\":";
    text += value;
    return *this;
  }
  JsonPoint& str(const char* key, const std::string& value) { return raw(key, "\"" + value + "\""); }
  JsonPoint& integer(const char* key, int64_t value) { return raw(key, std::to_string(value)); }
  JsonPoint& number(const char* key, double value, const char* format = "%.9g") {
    if (!std::isfinite(value)) return raw(key, "null");
    char b[40];
    std::snprintf(b, sizeof b, format, value);
    return raw(key, b);
  }
  JsonPoint& boolean(const char* key, bool value) { return raw(key, value ? "true" : "false"); }
  std::string done() const { return text + "}"; }
};

}  // namespace

std::string raw_point_json(const RawPoint& p) {
  JsonPoint j;
  j.str("what", p.what);
  const std::string& w = p.what;
  if (w == "kernel_switch")
    return j.integer("kernels", p.kernels).number("alone_s", p.alone_s).number("seconds", p.seconds).done();
  j.str("dtype", p.dtype.empty() ? "bf16" : p.dtype);
  if (w == "attention_peak") return j.number("flops", p.flops).number("seconds", p.seconds).done();
  if (w == "attention_shape")
    return j.integer("batch", p.batch).integer("heads", p.heads).integer("kv_heads", p.kv_heads).integer("q_len", p.q_len)
        .integer("kv_len", p.kv_len).integer("head_dim", p.head_dim).boolean("causal", true).number("seconds", p.seconds).done();
  if (w == "gemm_k_ramp") return j.integer("m", p.m).integer("n", p.n).integer("k", p.k).number("seconds", p.seconds).done();
  if (w == "decode_ramp")
    return j.integer("batch", p.batch).integer("heads", p.heads).integer("kv_heads", p.kv_heads).integer("kv_len", p.kv_len)
        .integer("head_dim", p.head_dim).number("seconds", p.seconds).done();
  if (w == "issue_softmax") return j.integer("m", p.m).integer("n", p.n).number("seconds", p.seconds).done();
  if ((w == "thread_chain" || w == "l2_residency") && p.kernel) {
    const KernelCase& c = *p.kernel;
    return j.str("kernel", to_string(c.kernel)).integer("rows", c.rows).integer("cols", c.cols).integer("vocab", c.vocab)
        .integer("batch", c.batch).integer("heads", c.heads).integer("kv_heads", c.kv_heads).integer("q_len", c.q_len)
        .integer("kv_len", c.kv_len).integer("head_dim", c.head_dim).boolean("l2_resident", c.l2_resident)
        .number("rotated_bytes", c.rotated_bytes).number("seconds", p.seconds).done();
  }
  if (w.rfind("sustained_", 0) == 0)
    return j.integer("m", p.m).integer("n", p.n).integer("k", p.k).number("seconds", p.seconds)
        .number("burst_seconds", p.burst_seconds).number("clock_mhz", p.clock_mhz, "%.6g")
        .number("burst_clock_mhz", p.burst_clock_mhz, "%.6g").number("power_w", p.power_w, "%.6g")
        .number("idle_power_w", p.idle_power_w, "%.6g").number("power_limit_w", p.power_limit_w, "%.6g").done();
  throw std::logic_error("raw_point_json: no format for calibration point '" + w + "'");
}

}  // namespace perfmodel::cli
