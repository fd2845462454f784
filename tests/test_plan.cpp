// perfmodel::plan and `perfmodel plan` (plan.hpp): every listed deployment meets the SLOs and fits,
// the ranking, the rejection reasons, the time it takes over 64 GPUs, and its top choice for the
// measured 2xH200 case (validation/results/h200x2-tp) against what measured fastest there.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

#include "cli_support.hpp"
#include "perfmodel/analysis.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/parallel_step.hpp"
#include "perfmodel/plan.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const Card& h200() {
  static const Card c = test::catalogue().card("h200");
  return c;
}
const Calibration& h200_cal() {
  static const Calibration c = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return c;
}

bool has(const std::vector<Deployment>& v, const std::string& reason_start) {
  for (const Deployment& d : v)
    if (d.limit.rfind(reason_start, 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("plan: every deployment meets TTFT and TPOT and fits, best tokens/s per GPU first") {
  const Model m = test::catalogue().model("llama3-70b");
  PlanRequest r;  // ctx 4096, output 512, TTFT 2 s, TPOT 50 ms
  r.max_gpus = 16;
  const PlanResult p = plan(m, h200(), &h200_cal(), r);
  REQUIRE(p.deployments.size() > 5);
  for (size_t i = 0; i < p.deployments.size(); ++i) {
    const Deployment& d = p.deployments[i];
    CAPTURE(to_string(d.parallel));
    CHECK(d.meets);
    CHECK(d.tpot_s <= r.tpot_s);
    CHECK(d.ttft_s <= r.ttft_s);
    CHECK(d.ttft_s == test::approx(d.prefill_s + d.tpot_s));
    CHECK(d.gpus <= 16);
    CHECK(d.batch <= d.max_batch);
    CHECK(d.memory_per_gpu <= h200().memory_bytes * r.memory_utilization);
    CHECK(d.tokens_per_s_per_gpu == test::approx(d.tokens_per_s / d.gpus));
    if (i > 0) CHECK(d.tokens_per_s_per_gpu <= p.deployments[i - 1].tokens_per_s_per_gpu);
  }
  // 70B in bf16 (141 GB) fits no single H200: among the best rejected, for memory.
  CHECK(has(p.rejected, "memory"));
  // The best deployment's batch cannot grow: one more sequence breaks the SLO it names.
  const Deployment& best = p.deployments.front();
  CHECK((best.limit == "TPOT" || best.limit == "memory" || best.limit == "TTFT"));
}

TEST_CASE("plan: rejection reasons name the SLO that fails") {
  const Model m = test::catalogue().model("llama3-70b");
  PlanRequest r;
  r.max_gpus = 8;
  r.tpot_s = 5e-3;  // no 70B decode step on 8 H200s is this fast
  PlanResult p = plan(m, h200(), &h200_cal(), r);
  CHECK(p.deployments.empty());
  CHECK(has(p.rejected, "TPOT"));
  r.tpot_s = 0.05;
  r.ttft_s = 0.05;  // a 4096-token prefill of a 70B model takes longer on any of them
  p = plan(m, h200(), &h200_cal(), r);
  CHECK(p.deployments.empty());
  CHECK(has(p.rejected, "TTFT"));
  r.ttft_s = 2;
  r.users = 100000;  // more users than 8 GPUs can hold
  p = plan(m, h200(), &h200_cal(), r);
  CHECK(p.deployments.empty());
  CHECK(has(p.rejected, "100000 users need"));
  PlanRequest bad;
  bad.ctx = 8192;  // + 512 output tokens: past Llama-3-70B's 8192 positions
  CHECK_THROWS_AS(plan(m, h200(), &h200_cal(), bad), InputError);
}

TEST_CASE("plan: with users, replicas serve them all") {
  const Model m = test::catalogue().model("llama3-8b");
  PlanRequest r;
  r.max_gpus = 16;
  r.users = 1000;
  const PlanResult p = plan(m, h200(), &h200_cal(), r);
  REQUIRE_FALSE(p.deployments.empty());
  for (const Deployment& d : p.deployments) CHECK(d.batch * d.parallel.dp >= 1000);
}

TEST_CASE("plan answers in under a second for a 70B model over up to 64 GPUs") {
  const Model m = test::catalogue().model("llama3-70b");
  PlanRequest r;
  r.max_gpus = 64;
  const auto t0 = std::chrono::steady_clock::now();
  const PlanResult p = plan(m, h200(), &h200_cal(), r);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("plan over 64 GPUs: " << s << " s, " << p.evaluated << " steps priced");
  CHECK(p.evaluated > 500);  // it did search: TP x PP x dtypes x profiles, each over batches
#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
  // Sanitizer and debug builds run 20-200x slower (11.8 s under ASan on a loaded 2-core CI
  // machine): the target is the product's, checked in the optimized build only.
  MESSAGE("time not checked in a sanitizer or debug build");
#else
  CHECK(s < 1.0);  // the target; ~0.05 s in a release build
#endif
}

TEST_CASE("plan's top choice for the measured Llama-3-8B case is the one that measured fastest (2xH200)") {
  // Measured decode steps (tp_decode.py: bf16, fused-style kernels in a CUDA graph) at ctx 1024,
  // batch 1-64, TP=1 on one GPU and TP=2 on two. The plan is asked for the same: bf16, fused,
  // up to 2 GPUs, requests whose mean context is 1000 + 48 / 2 = 1024.
  std::ifstream in(test::root() + "/validation/results/h200x2-tp/tp_decode.csv");
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  struct Row {
    int tp;
    int64_t batch;
    double time_s;
  };
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string model, tp, b, ctx, t;
    std::getline(ss, model, ',');
    std::getline(ss, tp, ',');
    std::getline(ss, b, ',');
    std::getline(ss, ctx, ',');
    std::getline(ss, t, ',');
    if (model == "llama3-8b" && ctx == "1024") rows.push_back({std::stoi(tp), std::stoll(b), std::stod(t)});
  }
  REQUIRE(rows.size() == 8);
  const Model m = test::catalogue().model("llama3-8b");
  for (double tpot : {4.8e-3, 50e-3}) {
    CAPTURE(tpot);
    // Measured: the TP degree whose steps within the TPOT give the most tokens/s per GPU.
    int measured_tp = 0;
    double measured_best = 0;
    for (const Row& r : rows)
      if (r.time_s <= tpot && r.batch / r.time_s / r.tp > measured_best) measured_best = r.batch / r.time_s / r.tp, measured_tp = r.tp;
    REQUIRE(measured_tp > 0);
    PlanRequest q;
    q.ctx = 1000;
    q.output_len = 48;
    q.ttft_s = 10;
    q.tpot_s = tpot;
    q.max_gpus = 2;
    q.weight_dtypes = q.kv_dtypes = {DType::bf16};
    q.impls = {Impl::fused};
    const PlanResult p = plan(m, h200(), &h200_cal(), q);
    REQUIRE_FALSE(p.deployments.empty());
    CHECK(p.deployments.front().parallel.tp == measured_tp);
    CHECK(p.deployments.front().parallel.pp == 1);
  }
}

TEST_CASE("CLI: perfmodel plan prints a table, CSV and JSON (deployments, schema_version); bad flags exit 2") {
  using cli_test::cli;
  const auto table = cli("plan --model llama3-70b --card h200 --ctx 4096 --output-len 512 --ttft 2s --tpot 50ms --gpus 16");
  SHOW(table);
  CHECK(table.rc == 0);
  CHECK(test::contains(table.out, "tok/s/GPU"));
  CHECK(test::contains(table.out, "why not"));
  const auto j = cli_test::json_of(cli("plan --model llama3-70b --card h200 --gpus 16 --format json"));
  REQUIRE(j.at("deployments"));
  CHECK(j.at("deployments")->arr.size() == 10);
  CHECK(j.at("meta.schema_version")->num == 1);
  const test::Json& first = j.at("deployments")->arr.front();
  for (const char* key : {"gpus", "tp", "pp", "ep", "dp", "batch", "weight_dtype", "kv_dtype", "impl", "ttft_s", "tpot_s",
                          "tokens_per_s", "tokens_per_s_per_gpu", "memory_per_gpu_bytes"})
    CHECK_MESSAGE(first.get(key), key);
  const auto csv = cli("plan --model llama3-70b --card h200 --gpus 16 --format csv");
  CHECK(csv.rc == 0);
  CHECK(test::contains(csv.out, "tokens_per_s_per_gpu"));
  const auto help = cli("plan --help");
  CHECK(help.rc == 0);
  CHECK(test::contains(help.out, "perfmodel plan --model llama3-70b"));
  CHECK(test::contains(help.out, "ctx + output-len / 2"));
  cli_test::expect_input_error(cli("plan --model llama3-70b --card h200 --tpot fast"), {"--tpot"});
  cli_test::expect_input_error(cli("plan --model llama3-70b --card h200 --gpus -1"), {"--gpus"});
  cli_test::expect_input_error(cli("plan --model llama3-70b --card h200 --ctx 9000"), {"--ctx 9000"});
  cli_test::expect_input_error(cli("plan --model llama3-8b --card a100 --weight-dtypes fp8"), {"--weight-dtypes fp8"});
  cli_test::expect_input_error(cli("plan --model llama3-8b --card h200 --kv-dtypes bf17"), {"--kv-dtypes"});
  // The measured case from the command line: bf16 only, fused, 2 GPUs, TPOT 4.8 ms -> TP=2 first.
  const auto measured = cli_test::json_of(cli("plan --model llama3-8b --card h200 --ctx 1000 --output-len 48 --ttft 10s "
                                              "--tpot 4.8ms --gpus 2 --impl fused --weight-dtypes bf16 --kv-dtypes bf16 "
                                              "--format json"));
  REQUIRE(measured.at("deployments"));
  REQUIRE_FALSE(measured.at("deployments")->arr.empty());
  CHECK(measured.at("deployments")->arr.front().get("tp")->num == 2);
  CHECK(measured.at("deployments")->arr.front().get("weight_dtype")->str == "bf16");
}

TEST_CASE("plan: every step's workload passes through PlanRequest::prepare (the CLI sets vLLM's fused_moe file there)") {
  // A MoE model: prepare sees each deployment's parallelism and dtypes before its steps are priced, and what it sets
  // is what the step runs (tiles that slow the fused_moe GEMMs down leave fewer deployments within the TPOT).
  const Model m = test::catalogue().model("mixtral-8x7b");
  PlanRequest r;
  r.max_gpus = 2;
  r.impls = {Impl::fused};
  r.weight_dtypes = r.kv_dtypes = {DType::bf16};
  int calls = 0;
  bool saw_tp2 = false;
  r.prepare = [&](Workload& w) {
    ++calls;
    saw_tp2 = saw_tp2 || w.parallel.tp == 2;
  };
  const PlanResult plain = plan(m, h200(), &h200_cal(), r);
  CHECK(calls >= plain.evaluated);
  CHECK(saw_tp2);
  REQUIRE_FALSE(plain.deployments.empty());
  r.prepare = [](Workload& w) { w.fused_moe_tiles = {{1, FusedMoeTile{16, 16, 16, 1, 4, 2}}}; };  // a tiny tile
  const PlanResult slow = plan(m, h200(), &h200_cal(), r);
  CHECK(slow.deployments.size() < plain.deployments.size());  // fewer meet the 50 ms TPOT at tiles that slow
}
