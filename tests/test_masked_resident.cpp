// Branch compres (opt-in `cudnn_decode.masked_resident: 1`, validation/results/h200-maskocc/
// compres.calibration.yaml): cuDNN's masked decode SDPA, the compiled step's call, priced by the resident
// rule (two CTAs an SM, as Nsight Compute reads the masked kernel: 246 registers), plus the dirty L2 tail of
// repeat_kv's expanded K / V written back under it. h200-maskocc's unsplit calls (nothing fitted on them)
// step at 264 CTAs, which the default's one-CTA-an-SM waves price 20-50 % slow at 160-192 CTAs.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>

#include "perfmodel/calibration.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

Roofs compiled_roofs(const std::string& file) {
  const Calibration cal = load_calibration(test::root() + file);
  return make_roofs(test::catalogue().card("h200"), &cal, Impl::compiled);
}

// |priced / measured - 1| over h200-maskocc's unsplit calls (part B, batch 3-32; the SDPA kernel alone).
std::vector<double> unsplit_errors(const Roofs& r) {
  std::vector<double> out;
  std::ifstream in(test::root() + "/validation/results/h200-maskocc/maskocc.jsonl");
  for (std::string line; std::getline(in, line);) {
    const YAML::Node c = YAML::Load(line);
    if (c["kind"].as<std::string>() != "sdpa" || c["part"].as<std::string>() != "B" || c["batch"].as<int>() < 3) continue;
    std::vector<double> t;
    for (const YAML::Node& k : c["trace"])
      if (k[0].as<std::string>().find("sdpa") != std::string::npos) t.push_back(k[1].as<double>() * 1e-6);
    const Op op = ops::attention_decode_cudnn("s", c["batch"].as<int64_t>(), c["heads"].as<int64_t>(),
                                              c["heads"].as<int64_t>(), c["kv_len"].as<int64_t>(),
                                              c["head_dim"].as<int64_t>(), DType::bf16, DType::bf16);
    out.push_back(std::fabs(price(op, r, Impl::compiled).time_s / quantile(t, 0.5) - 1));
  }
  return out;
}

}  // namespace

TEST_CASE("masked decode SDPA, resident two an SM (opt-in): h200-maskocc's unsplit calls") {
  const std::vector<double> def = unsplit_errors(compiled_roofs("/hardware/h200.calibration.yaml"));
  const std::vector<double> opt = unsplit_errors(compiled_roofs("/validation/results/h200-maskocc/compres.calibration.yaml"));
  REQUIRE(def.size() == 28);
  REQUIRE(opt.size() == 28);
  CAPTURE(quantile(def, 0.9));
  CAPTURE(quantile(opt, 0.5));
  CAPTURE(quantile(opt, 0.9));
  CHECK(quantile(def, 0.9) > 0.15);  // the default's one-CTA-an-SM waves
  CHECK(quantile(opt, 0.5) <= 0.06);
  CHECK(quantile(opt, 0.9) <= 0.10);
}

TEST_CASE("masked decode SDPA (opt-in): the dirty tail of an expanded K / V past the L2 is written back") {
  const Roofs r = compiled_roofs("/validation/results/h200-maskocc/compres.calibration.yaml");
  const Roofs d = compiled_roofs("/hardware/h200.calibration.yaml");
  // Qwen2.5-7B b8 over 4144 keys: repeat_kv writes 475 MB, far past the L2's 34.9 MB.
  Op op = ops::attention_decode_cudnn("s", 8, 28, 28, 4144, 128, DType::bf16, DType::bf16);
  const double clean = price(op, r, Impl::compiled).memory_time_s;
  op.l2_dirty_bytes = op.bytes();
  const double l2 = r.l2_cyclic_capacity;
  const double tail = l2 * -std::expm1(-(op.l2_dirty_bytes - l2) / l2) / r.write_bandwidth;
  CHECK(tail > 0.99 * l2 / r.write_bandwidth);
  CHECK(price(op, r, Impl::compiled).memory_time_s == test::approx(clean + tail).epsilon(1e-9));
  // A K / V the L2 holds is read from it before any write-back: nothing added; the default adds nothing.
  Op small = ops::attention_decode_cudnn("s", 1, 28, 28, 1000, 128, DType::bf16, DType::bf16);
  const double before = price(small, r, Impl::compiled).time_s;
  small.l2_dirty_bytes = small.bytes();
  CHECK(small.bytes() < l2);
  CHECK(price(small, r, Impl::compiled).time_s == before);
  const double def_clean = price(ops::attention_decode_cudnn("s", 8, 28, 28, 4144, 128, DType::bf16, DType::bf16), d, Impl::compiled).time_s;
  CHECK(price(op, d, Impl::compiled).time_s == def_clean);
}
