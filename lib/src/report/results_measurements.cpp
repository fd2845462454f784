// load_measurements (accuracy.hpp): the measured cases of kernel suites and step validations,
// read through the result schema (results.hpp).
#include <algorithm>
#include <filesystem>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/errors.hpp"
#include "result_readers.hpp"

namespace fs = std::filesystem;

namespace perfmodel {

namespace {

void add_suite(const KernelSuite& s, Measurements& into) {
  if (into.card.empty()) into.card = s.card;
  if (into.device.empty()) into.device = s.device;
  for (const SuiteCase& c : s.cases) {
    // Only cases that ran, matched the reference and were timed; kernels or dtypes this build
    // does not know cannot be predicted.
    if (!c.ok || !c.correct || !c.kernel || !c.measured_s || !(*c.measured_s > 0)) continue;
    into.cases.push_back(MeasuredCase{*c.kernel, *c.measured_s, c.implementation, c.index,
                                      c.kernel_s && *c.kernel_s > 0 ? *c.kernel_s : 0, c.kernels_per_launch});
  }
}

void add_step(const StepValidation& s, Measurements& into) {
  if (!s.measured_graph_s) return;  // the graph failed: nothing to compare with
  into.steps.push_back(MeasuredStep{s.model, s.workload, *s.measured_graph_s});
  if (into.card.empty()) into.card = s.card;
}

// `in_folder`: a file met while walking a folder, where JSON files that are no result (a run's
// versions, a fit's inputs: validation/results/*/meta.json, hf.json) are passed over; a file
// named on its own must be a result.
void load_one(const std::string& path, Measurements& into, bool in_folder) {
  const detail::Record root = detail::load_record(path);
  if (in_folder && !detail::try_result_kind(root)) return;
  const ResultKind kind = detail::result_kind(root);
  if (kind == ResultKind::raw_calibration)
    root.fail("points", "a raw calibration is the fit's input, not an accuracy measurement (perfmodel calibrate --from-raw)");
  into.files.push_back(path);
  if (kind == ResultKind::kernel_suite) add_suite(detail::kernel_suite_from(root), into);
  if (kind == ResultKind::step_validation) add_step(detail::step_validation_from(root), into);
  // torch_eager: PyTorch's eager timings are compared by their own README, not here.
}

}  // namespace

void load_measurements(const std::string& path, Measurements& into) {
  if (fs::is_directory(path)) {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(path))
      // calibration*.json are the fit's inputs, selftest.json the backend's correctness checks
      // (few samples): none is part of the accuracy data set.
      if (e.is_regular_file() && e.path().extension() == ".json" &&
          e.path().filename().string().rfind("calibration", 0) != 0 && e.path().filename() != "selftest.json")
        files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) load_one(f, into, true);
    return;
  }
  if (!fs::exists(path)) throw InputError("measurement file '" + path + "' does not exist");
  load_one(path, into, false);
}

}  // namespace perfmodel
