// |predicted / measured - 1| of the eager wall time over every ok step of a committed Hugging Face
// set (validation/results/<set>: hf_decode.py's steps[]), under a given calibration: what the
// eager host tests compare (test_eager_host.cpp, test_eager_host_split.cpp).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <string>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "test_support.hpp"

namespace test {

inline std::vector<double> hf_wall_errors(const std::string& set, const perfmodel::Calibration& cal) {
  using namespace perfmodel;
  const Card card = catalogue().card("h200");
  std::vector<double> out;
  for (const auto& st : YAML::LoadFile(root() + "/validation/results/" + set)["steps"]) {
    if (!st["ok"].as<bool>()) continue;
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
