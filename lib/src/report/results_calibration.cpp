// Reader of the raw calibration points (results.hpp): calibration-raw.json as the validation
// backend writes it (validation/src/api.cpp) with the CLI's extra points spliced in
// (tools/perfmodel/cmd_gpu_calibrate.cpp), and torch_eager.py's eager points.
#include "perfmodel/errors.hpp"
#include "perfmodel/report.hpp"
#include "perfmodel/results.hpp"
#include "result_readers.hpp"

namespace perfmodel {

namespace detail {

namespace {

RawPoint raw_point(const Record& p) {
  RawPoint pt;
  pt.what = p.str("what");
  pt.dtype = p.opt_str("dtype");
  pt.m = p.opt_integer("m"), pt.n = p.opt_integer("n"), pt.k = p.opt_integer("k");
  pt.batch = p.opt_integer("batch"), pt.heads = p.opt_integer("heads"), pt.kv_heads = p.opt_integer("kv_heads");
  pt.kv_len = p.opt_integer("kv_len"), pt.q_len = p.opt_integer("q_len"), pt.head_dim = p.opt_integer("head_dim");
  pt.bytes = p.opt_number("bytes"), pt.flops = p.opt_number("flops");
  pt.seconds = p.number("seconds");
  pt.burst_seconds = p.opt_number("burst_seconds"), pt.clock_mhz = p.opt_number("clock_mhz");
  pt.burst_clock_mhz = p.opt_number("burst_clock_mhz");
  pt.power_w = p.opt_number("power_w"), pt.idle_power_w = p.opt_number("idle_power_w");
  pt.power_limit_w = p.opt_number("power_limit_w");
  pt.alone_s = p.opt_number("alone_s");
  pt.kernels = static_cast<int>(p.opt_integer("kernels"));
  // The small kernels of the thread-chain and L2-residency fits are kernel cases of their own.
  if (pt.what == "thread_chain" || pt.what == "l2_residency") {
    KernelCase c;
    const std::string name = p.str("kernel");
    const auto k = kernel_from_string(name);
    if (!k) p.fail("kernel", "unknown kernel '" + name + "'");
    c.kernel = *k;
    if (!pt.dtype.empty()) {
      const auto t = dtype_from_string(pt.dtype);
      if (!t) p.fail("dtype", "unknown dtype '" + pt.dtype + "'");
      c.dtype = *t;
    }
    read_kernel_shape(p, c);
    c.name = pt.what + "_" + to_string(c.kernel);
    pt.kernel = c;
  }
  return pt;
}

}  // namespace

RawCalibration raw_calibration_from(const Record& root) {
  root.require_version("schema_version", kResultSchemaVersion);
  RawCalibration r;
  if (root.has("device")) {
    const Record d = root.object("device");
    r.device_name = d.opt_str("name");
    r.driver = d.opt_str("driver_version");
  }
  r.host_launch_s = root.opt_number("host_launch_overhead_s");
  r.kernel_floor_s = root.opt_number("min_kernel_time_s");
  for (const Record& p : root.list("points")) {
    RawPoint pt = raw_point(p);
    if (pt.seconds > 0) r.points.push_back(std::move(pt));  // else the measurement failed
  }
  return r;
}

}  // namespace detail

RawCalibration load_raw_calibration(const std::string& path) {
  return detail::raw_calibration_from(detail::load_record(path));
}

RawCalibration parse_raw_calibration(const std::string& json, const std::string& source) {
  return detail::raw_calibration_from(detail::parse_record(json, source));
}

namespace {

// Sets `key` only where the value differs from RawPoint's default (the backend writes the
// fields a point has, not every field of every kind).
void set_count(Node& n, const char* key, int64_t v) {
  if (v != 0) n.set(key, Node::integer(v));
}
void set_number(Node& n, const char* key, double v) {
  if (v != 0) n.set(key, Node::number(v));
}

Node point_node(const RawPoint& p) {
  Node n = Node::object();
  n.set("what", Node::text(p.what));
  if (!p.dtype.empty()) n.set("dtype", Node::text(p.dtype));
  if (p.kernel) {
    const KernelCase& c = *p.kernel;
    n.set("kernel", Node::text(to_string(c.kernel)));
    set_count(n, "rows", c.rows), set_count(n, "cols", c.cols), set_count(n, "vocab", c.vocab);
    if (c.causal) n.set("causal", Node::boolean(true));
    if (c.residual) n.set("residual", Node::boolean(true));
    if (c.l2_resident) n.set("l2_resident", Node::boolean(true));
    set_number(n, "rotated_bytes", c.rotated_bytes);
  }
  // A point and its kernel share the shape keys (the reader fills both from them): the point's
  // value, else the kernel's.
  auto shape = [&](const char* key, int64_t own, int64_t kernel_value) { set_count(n, key, own ? own : kernel_value); };
  const KernelCase k = p.kernel.value_or(KernelCase{});
  shape("m", p.m, k.m), shape("n", p.n, k.n), shape("k", p.k, k.k);
  shape("batch", p.batch, k.batch), shape("heads", p.heads, k.heads), shape("kv_heads", p.kv_heads, k.kv_heads);
  shape("q_len", p.q_len, k.q_len), shape("kv_len", p.kv_len, k.kv_len), shape("head_dim", p.head_dim, k.head_dim);
  set_number(n, "bytes", p.bytes), set_number(n, "flops", p.flops);
  n.set("seconds", Node::number(p.seconds));
  set_number(n, "alone_s", p.alone_s), set_count(n, "kernels", p.kernels);
  set_number(n, "burst_seconds", p.burst_seconds), set_number(n, "clock_mhz", p.clock_mhz);
  set_number(n, "burst_clock_mhz", p.burst_clock_mhz), set_number(n, "power_w", p.power_w);
  set_number(n, "idle_power_w", p.idle_power_w), set_number(n, "power_limit_w", p.power_limit_w);
  return n;
}

}  // namespace

std::string raw_calibration_json(const RawCalibration& raw) {
  Node root = Node::object();
  root.set("schema_version", Node::integer(kResultSchemaVersion));
  Node device = Node::object();
  device.set("name", Node::text(raw.device_name));
  device.set("driver_version", Node::text(raw.driver));
  root.set("device", std::move(device));
  set_number(root, "host_launch_overhead_s", raw.host_launch_s);
  set_number(root, "min_kernel_time_s", raw.kernel_floor_s);
  Node points = Node::array();
  for (const RawPoint& p : raw.points) points.push(point_node(p));
  root.set("points", std::move(points));
  return to_json(root, 0) + "\n";
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

}  // namespace perfmodel
