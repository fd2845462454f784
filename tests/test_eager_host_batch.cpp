// Branch hostgrow: the transformers eager decode host does not grow with batch or cache size.
// h200-heldout21 measured Yi-34B's wall at 52.0 / 63.1 / 92.3 ms at b1 ctx1800 / b12 ctx3000 /
// b56 ctx800 (kernels 22-33 ms), which read as a host growing with the cache. Over the 82
// host-bound contiguous-cache decode steps committed (hf-grid, moe-sync, heldout16-21;
// validation/scripts/production/hostgrow_scan.py) wall / predicted has Spearman rho +0.06 with
// batch and +0.10 with KV bytes; 13 steps run 1.35-1.77x slow at every batch (b1 and b2 among
// them) and same-model steps rise with batch as often as they fall; re-measured in one process
// (h200-hostgrow) the same b56 ctx800 step ran 44.3 ms first and 87.3 ms last, the host computing
// (thread CPU = return time), no allocs, no syncs: host episodes of a lease, not
// a batch mechanism (validation/results/h200-hostgrow/README.md). So the eager host stays one
// price per step's dispatched ops, whatever the batch; these guards fail if a batch or cache term
// is fitted onto it.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <string>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"
#include "hf_wall_errors.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

Workload contiguous_decode(int64_t batch, int64_t ctx) {
  Workload w;
  w.phase = Phase::decode;
  w.batch = batch;
  w.ctx = ctx + 1;  // the harness's step attends ctx + 1 keys (compare_hf.priced_ctx)
  w.impl = Impl::eager;
  w.eager_cache_cropped = false;
  return w;
}

}  // namespace

TEST_CASE("Yi-34B eager decode: one host price at b1 ctx1800, b12 ctx3000, b56 ctx800 (h200-heldout21's steps)") {
  // Its walls were timed after profiler sessions of their process: compared under the rate fitted on such walls
  // (test::dragged_wall_calibration); the committed rate per ATen call prices the same one host at every batch.
  const Card card = test::catalogue().card("h200");
  const Calibration cal = test::dragged_wall_calibration();
  const Calibration committed = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Model& yi_model = test::catalogue().model("yi-34b");
  const double h1 = evaluate(yi_model, contiguous_decode(1, 1800), card, &committed).cost.host_time_s;
  CHECK(evaluate(yi_model, contiguous_decode(56, 800), card, &committed).cost.host_time_s == doctest::Approx(h1).epsilon(1e-9));
  const Model& yi = test::catalogue().model("yi-34b");
  const Evaluation b1 = evaluate(yi, contiguous_decode(1, 1800), card, &cal);
  const Evaluation b12 = evaluate(yi, contiguous_decode(12, 3000), card, &cal);
  const Evaluation b56 = evaluate(yi, contiguous_decode(56, 800), card, &cal);
  CHECK(b1.cost.host_time_s > 0.040);  // 2422 launches and their views: 52.3 ms (measured 52.0 at b1)
  CHECK(b12.cost.host_time_s == doctest::Approx(b1.cost.host_time_s).epsilon(1e-9));
  CHECK(b56.cost.host_time_s == doctest::Approx(b1.cost.host_time_s).epsilon(1e-9));
  // Host-bound at all three: the kernels (22-33 ms) hide behind the host, the wall is the host's.
  for (const Evaluation* e : {&b1, &b12, &b56}) {
    CHECK(e->cost.device_time_s < 0.7 * e->cost.host_time_s);
    CHECK(e->cost.time_s == doctest::Approx(b1.cost.time_s).epsilon(0.01));
  }
}

TEST_CASE("the batch-free host holds at both ends of a run's batches (h200-hf-grid, host-bound steps, none fitted)") {
  // Llama-3-8B and Qwen2.5-7B host-bound decode steps at b1 and at b64-128 of one lease: the one
  // per-step host price is within 20 % at both ends. A host that grew with batch as Yi-34B's b56
  // read (+77 %) would fail the b128 points.
  const Card card = test::catalogue().card("h200");
  const Calibration cal = test::dragged_wall_calibration();  // the run's walls: after profiler sessions
  int seen = 0;
  for (const auto& st : YAML::LoadFile(test::root() + "/validation/results/h200-hf-grid/hf.json")["steps"]) {
    if (st["phase"].as<std::string>() != "decode" || !st["ok"].as<bool>()) continue;
    const std::string model = st["model"].as<std::string>();
    if (model != "llama3-8b" && model != "qwen2.5-7b") continue;
    const int64_t b = st["batch"].as<int64_t>(), ctx = st["ctx"].as<int64_t>();
    if (ctx >= 8192) continue;  // one position past Llama-3-8B's 8192 (compare_hf.model_arg's case)
    const Evaluation e = evaluate(test::catalogue().model(model), contiguous_decode(b, ctx), card, &cal);
    if (e.cost.device_time_s > 0.7 * e.cost.host_time_s) continue;  // not host-bound
    if (b != 1 && b < 64) continue;
    const double err = e.cost.time_s / st["wall_s"].as<double>() - 1;
    CAPTURE(model);
    CAPTURE(b);
    CAPTURE(ctx);
    CAPTURE(err);
    CHECK(std::fabs(err) < 0.20);
    ++seen;
  }
  CHECK(seen >= 5);
}
