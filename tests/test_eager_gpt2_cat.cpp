// GPT-2's DynamicCache cat in eager decode. Its new K and V are split off the fused c_attn output
// [b, 1, 3 x width]; beyond batch 1 their batch stride is 3 x width, so they are not contiguous and
// ATen's torch.cat takes its generic CatArrayBatchedCopy path over the whole cache, even when the
// cache itself is contiguous (a generate() loop's own cache, --eager-cache contiguous). At batch 1
// the size-1 batch dim makes the views contiguous and the vectorized copy runs. Measured in
// h200-heldout16/hf (GPT-2 b24 ctx300: 1.57 ms of kernels, priced 0.85 ms as a vectorized cat).
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <string>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

Workload contiguous_decode(int64_t batch, int64_t ctx) {
  Workload w;
  w.phase = Phase::decode;
  w.batch = batch;
  w.ctx = ctx + 1;
  w.impl = Impl::eager;
  w.eager_cache_cropped = false;
  return w;
}

bool cat_strided(const char* model, int64_t batch) {
  const Step s = build_step(test::catalogue().model(model), contiguous_decode(batch, 300));
  for (const Op& op : s.ops)
    if (op.name == "kv_write.cat") return op.strided;
  FAIL("no cache cat in the step");
  return false;
}

}  // namespace

TEST_CASE("GPT-2's fused-QKV views make the contiguous cache's cat generic beyond batch 1") {
  CHECK_FALSE(cat_strided("gpt2", 1));
  CHECK(cat_strided("gpt2", 8));
  CHECK(cat_strided("gpt2", 128));
  // Separate k / v projections: the token's [b, kv, 1, d] views are contiguous at any batch.
  CHECK_FALSE(cat_strided("llama2-7b", 64));
  CHECK_FALSE(cat_strided("qwen2.5-7b", 64));
}

TEST_CASE("GPT-2 contiguous-cache decode kernel time, h200-heldout16/hf (no step fitted)") {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  int seen = 0;
  for (const auto& st : YAML::LoadFile(test::root() + "/validation/results/h200-heldout16/hf/hf.json")["steps"]) {
    if (st["model"].as<std::string>() != "gpt2" || st["phase"].as<std::string>() != "decode" || !st["ok"].as<bool>())
      continue;
    REQUIRE(st["cache_layout"].as<std::string>() == "contiguous");
    const int64_t b = st["batch"].as<int64_t>(), ctx = st["ctx"].as<int64_t>();
    const Evaluation e = evaluate(test::catalogue().model("gpt2"), contiguous_decode(b, ctx), card, &cal);
    const double err = e.cost.device_time_s / st["kernel_s"].as<double>() - 1;
    CAPTURE(b);
    CAPTURE(ctx);
    CAPTURE(err);
    CHECK(std::fabs(err) < 0.08);  // b24 ctx300: -46 % with a vectorized cat, +2 % generic
    ++seen;
  }
  CHECK(seen >= 1);
}
