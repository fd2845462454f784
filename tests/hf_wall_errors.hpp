// |predicted / measured - 1| of the eager wall time over every ok step of a committed Hugging Face
// set (validation/results/<set>: hf_decode.py's steps[]), under a given calibration: what the
// eager host tests compare (test_eager_host.cpp, test_eager_host_split.cpp).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "test_support.hpp"

namespace test {

// The committed calibration with the eager host priced per kernel at host_per_kernel (host_per_aten removed): the rate
// fitted on walls timed after a torch.profiler session of the same process, which slows its later eager steps 25-80 %
// (the profiler drag, validation/results/h200-hostlease). Every transformers set before h200-hostlease/walls-first
// timed its walls so but each run's first point; their wall guards compare under the rate fitted on such walls, which
// checks the step's composition (launches, host against device) at the walls' own host pace. The committed host_per_aten
// prices walls no profiler touched (fit_host_clean.py).
inline perfmodel::Calibration dragged_wall_calibration() {
  perfmodel::Calibration c = perfmodel::load_calibration(root() + "/hardware/h200.calibration.yaml");
  for (auto& p : c.profiles)
    if (p.name == "eager") {
      p.host_per_aten_s.reset();
      p.host_per_aten_view_s.reset();
    }
  return c;
}

// `keep` (index in steps[], the step): which steps count; all by default.
inline std::vector<double> hf_wall_errors(const std::string& set, const perfmodel::Calibration& cal,
                                          const std::function<bool(int, const YAML::Node&)>& keep = nullptr) {
  using namespace perfmodel;
  const Card card = catalogue().card("h200");
  std::vector<double> out;
  int index = -1;
  for (const auto& st : YAML::LoadFile(root() + "/validation/results/" + set)["steps"]) {
    ++index;
    if (!st["ok"].as<bool>()) continue;
    if (keep && !keep(index, st)) continue;
    Workload w;
    w.phase = st["phase"].as<std::string>() == "decode" ? Phase::decode : Phase::prefill;
    w.batch = st["batch"].as<int64_t>();
    w.ctx = st["ctx"].as<int64_t>() + (w.phase == Phase::decode ? 1 : 0);
    w.impl = Impl::eager;
    w.eager_cache_cropped = !(st["cache_layout"] && st["cache_layout"].as<std::string>() == "contiguous");
    const Model m = catalogue().model(st["model"].as<std::string>());
    if (w.ctx > m.max_positions) continue;  // refused by the CLI (h200-hf-grid's Llama-2-7B at 8192)
    const Evaluation e = evaluate(m, w, card, &cal);
    out.push_back(std::fabs(e.cost.time_s / st["wall_s"].as<double>() - 1));
  }
  return out;
}

}  // namespace test
