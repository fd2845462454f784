// The MLA decode stand-ins' results (validation/results/h200-moe-fused, h200-moe-fused2) against
// attention_mla_decode as the fused profile prices it: the faster of the measured split policies
// at each (model, batch, ctx), the error |e| for DeepSeek-V2-Lite and signed e for DeepSeek-V3.
#pragma once
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"

namespace mla_test {

inline void mla_errors(const YAML::Node& root, const perfmodel::Roofs& r, std::vector<double>& lite_abs,
                       std::vector<double>& v3_signed) {
  using namespace perfmodel;
  std::map<std::tuple<std::string, int64_t, int64_t>, double> best, predicted;
  for (const auto& c : root["mla_cases"]) {
    if (!c["ok"].as<bool>()) continue;
    const auto key = std::make_tuple(c["model"].as<std::string>(), c["batch"].as<int64_t>(), c["kv_len"].as<int64_t>());
    const double t = c["median_s"].as<double>();
    best[key] = best.count(key) ? std::min(best[key], t) : t;
    const Op op = ops::attention_mla_decode("mla", c["batch"].as<int64_t>(), c["heads"].as<int64_t>(),
                                            c["kv_len"].as<int64_t>(), 512, 64, DType::bf16, DType::bf16);
    predicted[key] = price(op, r, Impl::fused).device_time_s;
  }
  for (const auto& [key, t] : best) {
    const double e = predicted[key] / t - 1;
    if (std::get<0>(key) == "deepseek-v2-lite") lite_abs.push_back(std::fabs(e));
    else v3_signed.push_back(e);
  }
}

}  // namespace mla_test
