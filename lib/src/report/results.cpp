// Readers of the kernel-suite and step-validation files (results.hpp), and telling the kinds
// of result file apart.
#include "perfmodel/results.hpp"

#include "perfmodel/errors.hpp"
#include "result_readers.hpp"

namespace perfmodel {

namespace detail {

namespace {

// The fields of a KernelCase as the backend writes them (validation/tools/driver.cpp, and the
// thread-chain points of a raw calibration): shapes default to 0 and flags to false because
// each kernel records only the ones it has.
void read_shape(const Record& r, KernelCase& c) {
  c.m = r.opt_integer("m"), c.n = r.opt_integer("n"), c.k = r.opt_integer("k");
  c.rows = r.opt_integer("rows"), c.cols = r.opt_integer("cols"), c.vocab = r.opt_integer("vocab");
  c.batch = r.opt_integer("batch"), c.heads = r.opt_integer("heads"), c.kv_heads = r.opt_integer("kv_heads");
  c.q_len = r.opt_integer("q_len"), c.kv_len = r.opt_integer("kv_len"), c.head_dim = r.opt_integer("head_dim");
  c.causal = r.opt_boolean("causal");
  c.residual = r.opt_boolean("residual");
  c.l2_resident = r.opt_boolean("l2_resident");
  c.rotated_bytes = r.nullable_number("rotated_bytes").value_or(0);
  c.samples = r.opt_integer("samples");
  c.launches_per_sample = r.opt_integer("launches_per_sample");
  c.buffer_sets = r.opt_integer("buffer_sets");
  if (c.samples < 0 || c.launches_per_sample < 0 || c.buffer_sets < 0)
    r.fail(c.samples < 0 ? "samples" : c.launches_per_sample < 0 ? "launches_per_sample" : "buffer_sets", "must be >= 0");
}

SuiteCase suite_case(const Record& r) {
  SuiteCase s;
  s.kernel_name = r.str("kernel");
  s.dtype_name = r.str("dtype");
  s.name = r.opt_str("name", s.kernel_name);
  s.ok = r.boolean("ok");
  s.correct = r.boolean("correct");
  if (!r.has("measured_s")) r.fail("measured_s", "missing required field 'measured_s' (null when not measured)");
  s.measured_s = r.nullable_number("measured_s");
  // A launch's time: microseconds to seconds; past an hour it is no measurement (and overflows what prices it).
  if (s.measured_s && !(*s.measured_s > 0 && *s.measured_s <= 3600))
    r.fail("measured_s", "must be > 0 and at most 3600 seconds (null when not measured)");
  s.implementation = r.opt_str("implementation");
  s.kernel_s = r.nullable_number("kernel_s");
  if (s.kernel_s && !(*s.kernel_s > 0 && *s.kernel_s <= 3600))
    r.fail("kernel_s", "must be > 0 and at most 3600 seconds (null when not measured)");
  const int64_t launches = r.opt_integer("kernels_per_launch");
  if (launches < 0 || launches > 1000) r.fail("kernels_per_launch", "must be 0..1000");
  s.kernels_per_launch = static_cast<int>(launches);
  const auto k = kernel_from_string(s.kernel_name);
  const auto dt = dtype_from_string(s.dtype_name);
  if (k && dt) {
    KernelCase c;
    c.name = s.name;
    c.kernel = *k;
    c.dtype = *dt;
    read_shape(r, c);
    s.kernel = c;
  }
  return s;
}

template <class T>
T enum_field(const Record& r, const std::string& key, const std::vector<std::pair<const char*, T>>& names) {
  const std::string v = r.str(key);
  std::string known;
  for (const auto& [name, value] : names) {
    if (v == name) return value;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  r.fail(key, "unknown value '" + v + "' (expected " + known + ")");
}

DType dtype_field(const Record& r, const std::string& key) {
  const auto t = dtype_from_string(r.str(key));
  if (!t) r.fail(key, "unknown dtype '" + r.str(key) + "'");
  return *t;
}

}  // namespace

void read_kernel_shape(const Record& r, KernelCase& c) { read_shape(r, c); }

std::optional<ResultKind> try_result_kind(const Record& root) {
  if (root.has("cases")) return ResultKind::kernel_suite;
  if (root.has("step") && root.has("inputs")) return ResultKind::step_validation;
  if (root.has("points")) return ResultKind::raw_calibration;
  if (root.has("torch") && root.has("steps")) return ResultKind::torch_eager;
  return std::nullopt;
}

ResultKind result_kind(const Record& root) {
  if (auto k = try_result_kind(root)) return *k;
  root.fail("", "not a result file: expected a kernel suite (\"cases\"), a step validation (\"inputs\" and "
                "\"step\"), a raw calibration (\"points\") or torch_eager.py's timings (\"torch\")");
}

KernelSuite kernel_suite_from(const Record& root) {
  root.require_version("schema_version", kResultSchemaVersion);
  KernelSuite s;
  s.file = root.file();
  const Record meta = root.object("meta");
  s.device = meta.object("device").str("name");
  s.card = meta.opt_str("card");
  for (const Record& c : root.list("cases")) {
    s.cases.push_back(suite_case(c));
    s.cases.back().index = static_cast<int>(s.cases.size()) - 1;
  }
  return s;
}

StepValidation step_validation_from(const Record& root) {
  root.object("meta").require_version("schema_version", kResultSchemaVersion);
  StepValidation s;
  s.file = root.file();
  const Record in = root.object("inputs");
  s.card = in.object("card").str("key");
  s.model = in.object("model").str("key");
  const Record w = in.object("workload");
  s.workload.phase = enum_field<Phase>(w, "phase", {{"decode", Phase::decode}, {"prefill", Phase::prefill}});
  s.workload.batch = w.integer("batch");
  if (s.workload.batch < 1) w.fail("batch", "must be at least 1, got " + std::to_string(s.workload.batch));
  s.workload.ctx = w.integer("ctx");
  if (s.workload.ctx < 1) w.fail("ctx", "must be at least 1, got " + std::to_string(s.workload.ctx));
  s.workload.act_dtype = dtype_field(w, "act_dtype");
  s.workload.weight_dtype = dtype_field(w, "weight_dtype");
  s.workload.kv_dtype = dtype_field(w, "kv_dtype");
  s.workload.impl =
      enum_field<Impl>(w, "impl", {{"fused", Impl::fused}, {"eager", Impl::eager}, {"compiled", Impl::compiled}});
  const Record step = root.object("step");
  if (!step.has("measured_graph_s"))
    step.fail("measured_graph_s", "missing required field 'measured_graph_s' (null when not measured)");
  s.measured_graph_s = step.nullable_number("measured_graph_s");
  return s;
}

}  // namespace detail

ResultKind result_kind(const std::string& path) { return detail::result_kind(detail::load_record(path)); }

KernelSuite read_kernel_suite(const std::string& path) {
  return detail::kernel_suite_from(detail::load_record(path));
}

StepValidation read_step_validation(const std::string& path) {
  return detail::step_validation_from(detail::load_record(path));
}

}  // namespace perfmodel
