#pragma once
// Predicted against measured: loads result files of the validation backend and recomputes the
// prediction for every measured case with the current model (perfmodel accuracy).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "perfmodel/error_band.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

struct MeasuredCase {
  KernelCase kernel;
  double measured_s = 0;  // hot median per launch
  std::string implementation;  // production kernels: torch.sdpa.cudnn, torch.eager, ... (empty: this backend's)
  int index = -1;              // position in its file's `cases`
  double kernel_s = 0;         // its kernels alone (profiler durations; 0: not measured)
  int kernels_per_launch = 0;  // kernels one call launched (0: not recorded)
};

struct MeasuredStep {
  std::string model;      // catalogue key
  Workload workload;
  double measured_s = 0;  // the whole step replayed as one graph
};

struct Measurements {
  std::vector<std::string> files;
  std::string card;       // catalogue key recorded in the files (meta.card)
  std::string device;     // device name recorded in the files
  std::vector<MeasuredCase> cases;
  std::vector<MeasuredStep> steps;
};

// Reads one file or every *.json under a folder (recursively; calibration*.json and
// selftest.json excepted): kernel-suite files
// ({"cases": [...]}) and step files written by `validate --output`. Throws ConfigError.
void load_measurements(const std::string& path, Measurements& into);

// The accuracy sets of issue 4: gemm | elementwise (elementwise, norm, softmax, rotary,
// kv_append, embedding, copy) | attention | step.
std::string accuracy_set(KernelId k);

struct CaseError {
  std::string set, name, detail;
  double predicted_s = 0, measured_s = 0;
  double error = 0;  // predicted / measured - 1
};

struct SetStats {
  std::string set;
  int cases = 0;
  double median_abs = 0, p90_abs = 0, mean_signed = 0;
  std::vector<CaseError> worst;  // up to five, largest |error| first
};

std::vector<CaseError> evaluate(const Measurements& m, const Roofs& roofs,
                                const std::function<Model(const std::string&)>& model_lookup);

std::vector<SetStats> summarize(const std::vector<CaseError>& errors);

// The p10/p90 error bands per profile ("backend", "fused", "eager") and set, from the data in m
// (error_band.hpp): backend from this project's cases and steps, fused/eager from production
// cases held out of the profile fit (and, for fused, the backend's whole steps).
std::map<std::string, ErrorBands> measure_error_bands(const Measurements& m, const Card& card,
                                                      const Calibration* calibration,
                                                      const std::function<Model(const std::string&)>& model_lookup);

}  // namespace perfmodel
