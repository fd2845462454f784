// Issue 10 item 5, the fused profile's whole steps: validation/results/h200-fused-step-cudnn/results.jsonl,
// 72 steps (TinyLlama-1.1B, Llama-3-8B, Qwen2.5-7B, Mistral-7B; decode batch 1/8/32/64/128 x ctx
// 512/2048/4096, prefill batch 1 x 512/2048/4096) built by fused_step.py from the production kernels
// the profile is calibrated on (decode attention: cuDNN's GQA-packed kernel), one CUDA graph each, on
// the H200. Re-priced here as
// compare_fused_step.py prices them (perfmodel decode|prefill --impl fused --card h200 at the
// measured ctx; TinyLlama past its 2048 positions through a raised max_position_embeddings).
// Nothing was fitted on these steps: the kernel prices on kernel cases, the profile's
// graph_kernel_gap (the GPU's idle time per launch inside the graph) and graph_launch_per_node (the
// host's graph launch, host time: step.time_s adds it, as the idle GPU of measure()'s replay waits
// for it) on a later lease's sweep, h200-fused-step-alone (tests/test_graph_gap_accuracy.cpp; before
// branch graphhost11 one graph_kernel_gap, 0.891 us, fitted on h200-fused-step's replays). The figures
// are those the results README and docs/accuracy-notes.md report; a change that moves them past
// these bounds fails here. graphhost11: graph replay 2.2 / 5.2 % -> 2.1 / 4.7 %, decode 2.2 -> 2.1 %,
// prefill 2.7 -> 2.5 %; with the kernel-only gemm block 3.0 / 6.4 % -> 2.7 / 5.8 %.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/calibration_transfer.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct StepError {
  std::string phase;
  double graph = 0;    // step.time_s / graph replay (CUDA events, median) - 1
  double kernels = 0;  // step.device_time_s / the profiler's kernel sum - 1
  int64_t launches = 0;
  double measured_kernels = 0;
  double rope = 0;  // the rotary + KV write ops' kernel time / the measured rope_kv kernels - 1
};

// fused_categories.py's rule for the rope_kv kernels (Inductor's rotary and cache writes): the first
// category whose key the lowercased name holds, attention, GEMM, norm and activation before it.
bool rope_kernel(std::string n) {
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto any = [&](std::initializer_list<const char*> keys) {
    for (const char* k : keys)
      if (n.find(k) != std::string::npos) return true;
    return false;
  };
  if (any({"flash", "fmha", "sdpa", "cudnn", "attention", "gemm", "gemv", "nvjet", "cutlass", "xmma", "sm90_",
           "splitkreduce", "cublas", "rms_norm", "rsqrt", "mean", "silu"}))
    return false;
  return any({"index_put", "cat", "cos", "sin", "triton"});
}

Calibration committed() { return load_calibration(test::root() + "/hardware/h200.calibration.yaml"); }

// A fused_step.py record's workload, and the catalogue model with its positions raised to the ctx (the kernels ran
// past TinyLlama's 2048 positions).
std::pair<Model, Workload> workload_of(const YAML::Node& r) {
  Model m = test::catalogue().model(r["model"].as<std::string>());
  Workload w;
  w.phase = r["phase"].as<std::string>() == "decode" ? Phase::decode : Phase::prefill;
  w.batch = r["batch"].as<int64_t>();
  w.ctx = r["ctx"].as<int64_t>();
  w.impl = Impl::fused;
  m.max_positions = std::max(m.max_positions, w.ctx);
  return {m, w};
}

std::vector<YAML::Node> records(const std::string& set) {  // one JSON record a line
  std::ifstream in(test::root() + "/validation/results/" + set + "/results.jsonl");
  std::vector<YAML::Node> out;
  for (std::string line; std::getline(in, line);) out.push_back(YAML::Load(line));
  return out;
}

std::vector<StepError> errors_with(const Calibration& cal, const std::string& card_key = "h200",
                                   const std::string& set = "h200-fused-step-cudnn") {
  const Card card = test::catalogue().card(card_key);
  std::vector<StepError> out;
  for (const YAML::Node& r : records(set)) {
    if (r["kind"].as<std::string>() != "point" || !r["ok"].as<bool>()) continue;
    const auto [m, w] = workload_of(r);
    const Evaluation e = evaluate(m, w, card, &cal);
    StepError s;
    s.phase = r["phase"].as<std::string>();
    s.graph = e.cost.time_s / r["device_s"].as<double>() - 1;
    s.kernels = e.cost.device_time_s / r["kernel_s"].as<double>() - 1;
    double rope = 0, measured_rope = 0;
    for (size_t i = 0; i < e.step.ops.size(); ++i) {
      const Op& op = e.step.ops[i];
      s.launches += op.launches * op.count;
      if (op.kernel == KernelId::rotary || op.kernel == KernelId::kv_append)
        rope += static_cast<double>(op.count) * e.cost.ops[i].device_time_s;
    }
    for (const auto& k : r["top_kernels_s"])
      if (rope_kernel(k.first.as<std::string>())) measured_rope += k.second.as<double>();
    s.rope = measured_rope > 0 ? rope / measured_rope - 1 : 0;
    s.measured_kernels = r["kernels"].as<double>();
    out.push_back(s);
  }
  return out;
}

const std::vector<StepError>& step_errors() {
  static const std::vector<StepError> errors = errors_with(committed());
  return errors;
}

std::vector<double> abs_errors(double StepError::*field, const std::string& phase,
                               const std::vector<StepError>& errors = step_errors()) {  // phase "": all
  std::vector<double> v;
  for (const StepError& e : errors)
    if (phase.empty() || e.phase == phase) v.push_back(std::fabs(e.*field));
  return v;
}

}  // namespace

TEST_CASE("fused steps on production kernels: 72 measured, within the achieved error") {
  REQUIRE(step_errors().size() == 72);
  const std::vector<double> graph = abs_errors(&StepError::graph, ""), kernels = abs_errors(&StepError::kernels, "");
  CAPTURE(quantile(graph, 0.5));
  CAPTURE(quantile(graph, 0.9));
  CAPTURE(quantile(kernels, 0.5));
  CAPTURE(quantile(kernels, 0.9));
  // compare_fused_step.py on h200-fused-step-cudnn: graph replay 3.3 % / 7.5 %, kernel sum 3.5 % /
  // 7.8 % (median / p90). The earlier set (h200-fused-step, PyTorch's FlashAttention-2 decode, priced
  // with FlashAttention-2's kernel model): 3.1 % / 6.0 % and 3.4 % / 6.8 %.
  CHECK(quantile(graph, 0.5) <= 0.034);
  CHECK(quantile(graph, 0.9) <= 0.076);
  CHECK(quantile(kernels, 0.5) <= 0.036);
  CHECK(quantile(kernels, 0.9) <= 0.079);
  for (const StepError& e : step_errors()) {
    CHECK(std::isfinite(e.graph));
    // The worst: TinyLlama decode b1 ctx512, +18.4 % (22 layers of 1-4 us kernels: the kernel floors,
    // fitted on one call each, and the in-graph gap both count the idle after a kernel).
    CHECK(std::fabs(e.graph) <= 0.19);
    CHECK(std::fabs(e.kernels) <= 0.16);
  }
}

TEST_CASE("fused decode and prefill apart") {
  const std::vector<double> dec = abs_errors(&StepError::graph, "decode"), pre = abs_errors(&StepError::graph, "prefill");
  REQUIRE(dec.size() == 60);
  REQUIRE(pre.size() == 12);
  CAPTURE(quantile(dec, 0.5));
  CAPTURE(quantile(pre, 0.5));
  CHECK(quantile(dec, 0.5) <= 0.032);  // 3.1 %
  CHECK(quantile(pre, 0.5) <= 0.04);   // 3.7 %; 2.6 % since branch rope10 (3.9 % before, with harness_idle)
  CHECK(quantile(pre, 0.5) <= 0.027);
  const std::vector<double> dec_k = abs_errors(&StepError::kernels, "decode");
  CHECK(quantile(dec_k, 0.5) <= 0.034);  // 2.9 %
}

TEST_CASE("fused prefill: the rotary + KV write as Inductor's small-block kernels run it (branch rope10)") {
  // fused_step.py's rope_kv runs the kernels Inductor compiled at decode sizes (XBLOCK 128 / 256):
  // their waves of short CTAs, not their bytes, set the time (lib/src/cost/inductor_waves.cpp,
  // validation/results/h200-rope10). Nothing fitted: the wave is the card's pass_latency +
  // thread_chain. Priced as a stream before: median 72 %, mean -71 % (compare_fused_step.py's
  // rope_kv category); now 18.6 % / -14.7 %, the autotuner's coin (XBLOCK 128 or 256 per kernel,
  // priced as their mean) the spread: Qwen2.5-7B's and TinyLlama's q kept 128 (under), Llama-3-8B's 256.
  std::vector<double> pre, signed_err;
  for (const StepError& e : step_errors())
    if (e.phase == "prefill") {
      pre.push_back(std::fabs(e.rope));
      signed_err.push_back(e.rope);
    }
  REQUIRE(pre.size() == 12);
  CAPTURE(quantile(pre, 0.5));
  CAPTURE(quantile(pre, 0.9));
  CHECK(quantile(pre, 0.5) <= 0.19);
  CHECK(quantile(pre, 0.9) <= 0.31);
  double mean = 0;
  for (double v : signed_err) mean += v / static_cast<double>(signed_err.size());
  CHECK(std::fabs(mean) <= 0.15);
}

TEST_CASE("fused steps launch fewer kernels than measured, but not far fewer") {
  // Measured: Inductor's rotary + KV write is three kernels (priced as three since branch small11),
  // cuBLASLt adds a splitKreduce kernel to some GEMMs, and cuDNN's split decode adds its
  // reduction kernel (priced as the attention op's second launch when the engine splits). With the
  // third rope kernel priced (branch small11; `<` before), 20 decode steps launch exactly the priced
  // kernels (TinyLlama at ctx 512 and at batch 32-128, Llama-3-8B at batch 64, Mistral at 64-128).
  for (const StepError& e : step_errors()) {
    CHECK(e.launches <= e.measured_kernels);
    CHECK(e.launches >= 0.6 * e.measured_kernels);
  }
}

namespace {

// The committed calibration, whose fused profile prices its small kernels alone (harness_idle since
// branch idle8: the floors fitted on single-call harness replays less the 0.46 us idle after one
// kernel that such a replay holds, validation/results/h200-gemm-chain), or with the idle counted
// twice as before (idle = false: the floors as fitted, plus graph_kernel_gap per launch); and,
// optionally, gemm5's kernel-only `gemm:` block (fit_gemm.py --kernel-only), not in the committed
// file: it moves the fused prefill median (docs/accuracy-notes.md).
Calibration with(bool idle, bool gemm_block) {
  Calibration c = committed();
  for (ProfileCalibration& p : c.profiles) {
    if (p.name != "fused") continue;
    if (!idle) p.harness_idle_s = 0;
    if (gemm_block) {
      test::lay_fitted_gemm_block(p);
      p.gemm.split_k_min_slice.reset();  // gemm5's block: its power-of-two splits (the committed one carries block11's rule)
    }
  }
  return c;
}

}  // namespace

TEST_CASE("fused steps with the small kernels priced alone: the idle is counted once") {
  // Counted twice (before branch idle8): 3.3 / 7.5 % (graph replay), 3.5 / 7.8 % (kernel sum); the
  // decode norms +43 %, the activation +54 %, the decode attention +6.6 % mean signed
  // (compare_fused_step.py). Each small kernel's floor held the idle after it and the step added
  // graph_kernel_gap on top; priced alone (committed): 2.5 / 5.2 % and 2.8 / 6.8 % (norms +22 %,
  // activation +28 %, attention +2.5 %).
  const Calibration cal = committed();
  const Roofs r = make_roofs(test::catalogue().card("h200"), &cal, Impl::fused);
  CHECK(r.harness_idle_s == test::approx(0.46e-6));
  const std::vector<StepError> alone = errors_with(with(true, false)), twice = errors_with(with(false, false));
  REQUIRE(alone.size() == 72);
  const std::vector<double> graph = abs_errors(&StepError::graph, "", alone), kernels = abs_errors(&StepError::kernels, "", alone);
  CAPTURE(quantile(graph, 0.5));
  CAPTURE(quantile(graph, 0.9));
  CAPTURE(quantile(kernels, 0.5));
  CAPTURE(quantile(kernels, 0.9));
  CHECK(quantile(graph, 0.5) <= 0.026);
  CHECK(quantile(graph, 0.9) <= 0.053);
  CHECK(quantile(kernels, 0.5) <= 0.029);
  CHECK(quantile(kernels, 0.9) <= 0.069);
  CHECK(quantile(graph, 0.9) < quantile(abs_errors(&StepError::graph, "", twice), 0.9) - 0.015);
  // Every step's kernel sum goes down (each has small kernels).
  for (size_t i = 0; i < alone.size(); ++i) CHECK(alone[i].kernels < twice[i].kernels);
}

TEST_CASE("fused steps with the small kernels alone and the kernel-only gemm block") {
  // 3.2 / 6.4 % (graph), 2.5 / 6.8 % (kernel sum), decode 2.9 %; prefill 4.3 % before branch rope10
  // (the block prices TinyLlama's M = 512 projections over, +0.5 -> +6.1 %, and the prefill rotary,
  // -70 %, was what the idle offset). With the rotary priced as Inductor's small-block waves (rope10):
  // 2.9 / 6.2 % (graph), 2.5 / 5.2 % (kernel sum), decode 2.9 %, prefill 2.8 %: within the 4 % guard.
  const std::vector<StepError> both = errors_with(with(true, true));
  const std::vector<double> graph = abs_errors(&StepError::graph, "", both), kernels = abs_errors(&StepError::kernels, "", both);
  CAPTURE(quantile(graph, 0.5));
  CAPTURE(quantile(graph, 0.9));
  CAPTURE(quantile(kernels, 0.5));
  CAPTURE(quantile(kernels, 0.9));
  CHECK(quantile(graph, 0.5) <= 0.033);
  CHECK(quantile(graph, 0.9) <= 0.065);
  CHECK(quantile(kernels, 0.5) <= 0.026);
  CHECK(quantile(kernels, 0.9) <= 0.069);
  CHECK(quantile(abs_errors(&StepError::graph, "decode", both), 0.5) <= 0.03);
  CAPTURE(quantile(abs_errors(&StepError::graph, "prefill", both), 0.5));
  CHECK(quantile(abs_errors(&StepError::graph, "prefill", both), 0.5) <= 0.029);
}

TEST_CASE("fused decode small kernels alone, cold and warm: what the profile's price stands for") {
  // validation/results/h200-fusedsmall (branch fusedsmall): fused_step.py's own Inductor kernels
  // alone, after a 256 MB flush (cold), after a copy kernel that writes their activation input
  // (producer-warm), back to back (all-warm). Nothing was fitted on them. The fused profile prices
  // SiLU*mul DRAM-fed, which is the cold kernel (priced alone / cold - 1: -9 to +17 %, median abs
  // 5.2 %); inside the step the gate|up GEMM has just written its input, and warm it runs 23-39 %
  // faster (priced / warm - 1: +40 to +53 %): the decode category's over-price (+28 % mean signed,
  // compare_fused_step.py). add+RMSNorm is not faster producer-warm (its residual and weight stay
  // DRAM-fed): its +22 % in the step is its price alone (+7 to +24 % against the cold kernel at
  // 8-128 rows, -21 % at 1 x 4096; the single-kernel Inductor model's). decode-small-kernels.patch
  // there prices the warm SiLU*mul and V write and Inductor's third rope kernel; it is not the
  // default because it moves the guards above (its README).
  const Calibration cal = committed();
  const Roofs r = make_roofs(test::catalogue().card("h200"), &cal, Impl::fused);
  std::ifstream in(test::root() + "/validation/results/h200-fusedsmall/l2warm.jsonl");
  std::vector<double> act_cold, act_warm, norm_cold;
  for (std::string line; std::getline(in, line);) {
    const YAML::Node a = YAML::Load(line);
    const int64_t rows = a["rows"].as<int64_t>(), width = a["width"].as<int64_t>();
    const bool norm = a["kind"].as<std::string>() == "add_rmsnorm";
    const Op op = norm ? ops::rmsnorm("n", rows, width, DType::bf16, true) : ops::silu_mul("a", rows, width, DType::bf16);
    const double priced = price(op, r, Impl::fused).device_time_s;
    const double cold = a["cold"].as<double>() * 1e-6, warm = a["producer_warm"].as<double>() * 1e-6;
    CAPTURE(line);
    CHECK(warm <= cold);  // a warm input never costs time
    if (norm) {
      norm_cold.push_back(priced / cold - 1);
    } else {
      act_cold.push_back(std::fabs(priced / cold - 1));
      act_warm.push_back(priced / warm - 1);
      CHECK(warm < 0.8 * cold);  // the producer's output is in L2: 23-39 % faster
    }
  }
  REQUIRE(act_cold.size() == 8);
  REQUIRE(norm_cold.size() == 8);
  MESSAGE("SiLU*mul priced / warm - 1: " << act_warm[0] << " " << act_warm[1] << " " << act_warm[2] << " " << act_warm[3]
          << " " << act_warm[4] << " " << act_warm[5] << " " << act_warm[6] << " " << act_warm[7]);
  MESSAGE("add+RMSNorm priced / cold - 1: " << norm_cold[0] << " " << norm_cold[1] << " " << norm_cold[2] << " "
          << norm_cold[3] << " " << norm_cold[4] << " " << norm_cold[5] << " " << norm_cold[6] << " " << norm_cold[7]);
  CAPTURE(quantile(act_cold, 0.5));
  CHECK(quantile(act_cold, 0.5) <= 0.06);  // 5.2 %: the DRAM-fed price is the cold kernel's
}

TEST_CASE("fused steps on an H100 (h100-fusedh100), the H200's calibration carried: held out whole") {
  // validation/results/h100-fusedh100 (twenty-seventh session, prices committed before the run): fused_step.py's
  // steps on an H100 80GB HBM3, priced `--card h100-sxm` with the H200's file carried (calibration_transfer.hpp).
  // grid/: h200-fused-step-cudnn's 72 points (70 ran; two did not fit 80 GB): graph replay 4.0 / 6.6 %, kernel sum
  // 3.6 / 6.8 %. new/: SmolLM2-1.7B, Llama-3.2-3B, Yi-6B and Qwen2.5-14B, which no fused step had run, at batch 4 /
  // 16 / 48, ctx 1024 / 3072 and prefill 1024 / 6144: 2.2 / 8.6 % and 3.9 / 8.2 %.
  const Card card = test::catalogue().card("h100-sxm");
  const Calibration carried = *sibling_calibration(test::catalogue(), card);
  const struct {
    const char* set;
    size_t steps;
    double graph_median, graph_p90, kernels_median, kernels_p90;
  } sets[] = {{"h100-fusedh100/grid", 70, 0.041, 0.067, 0.037, 0.069}, {"h100-fusedh100/new", 32, 0.023, 0.087, 0.040, 0.083}};
  for (const auto& s : sets) {
    CAPTURE(s.set);
    const std::vector<StepError> e = errors_with(carried, "h100-sxm", s.set);
    REQUIRE(e.size() == s.steps);
    const std::vector<double> graph = abs_errors(&StepError::graph, "", e), kernels = abs_errors(&StepError::kernels, "", e);
    CAPTURE(quantile(graph, 0.5));
    CAPTURE(quantile(graph, 0.9));
    CAPTURE(quantile(kernels, 0.5));
    CAPTURE(quantile(kernels, 0.9));
    CHECK(quantile(graph, 0.5) <= s.graph_median);
    CHECK(quantile(graph, 0.9) <= s.graph_p90);
    CHECK(quantile(kernels, 0.5) <= s.kernels_median);
    CHECK(quantile(kernels, 0.9) <= s.kernels_p90);
  }
}

TEST_CASE("fused steps on an H100: the points that ran out of memory are the ones perfmodel says do not fit") {
  // Llama-3-8B and Mistral-7B at batch 128, ctx 4096 (KV cache 68.7 GB beside 15-16 GB of weights) raised CUDA's
  // out-of-memory error; perfmodel's memory check (vLLM's 0.9 of the card) refused the same two, and passes every
  // point that ran.
  const Card card = test::catalogue().card("h100-sxm");
  const Calibration carried = *sibling_calibration(test::catalogue(), card);
  int oom = 0, ran = 0;
  for (const char* set : {"h100-fusedh100/grid", "h100-fusedh100/new"})
    for (const YAML::Node& r : records(set)) {
      const std::string kind = r["kind"].as<std::string>();
      if (kind != "point" && kind != "error") continue;
      const auto [m, w] = workload_of(r);
      const bool fits = evaluate(m, w, card, &carried).status.fits;
      CAPTURE(r["model"].as<std::string>());
      CAPTURE(w.batch);
      CAPTURE(w.ctx);
      if (kind == "error") {
        REQUIRE(r["error"].as<std::string>().find("OutOfMemoryError") != std::string::npos);
        CHECK(!fits);
        ++oom;
      } else {
        CHECK(fits);
        ++ran;
      }
    }
  CHECK(oom == 2);
  CHECK(ran == 102);
}

TEST_CASE("the fused profile's step band is these production steps' error, not this project's own steps'") {
  // validation/scripts/error_bands.py writes the fused `step` band from h200-fused-step-cudnn (p10 / p90 of
  // step.time_s / graph replay - 1); before, it was the backend's graph-replayed steps of this project's kernels
  // (-6.3 / +1.6 %). A change of the fused prices that leaves the committed band behind fails here: rerun
  // error_bands.py.
  const Calibration cal = committed();
  REQUIRE(cal.error_bands.count("fused"));
  const ErrorBands& fused = cal.error_bands.at("fused");
  REQUIRE(fused.sets.count("step"));
  CHECK(test::contains(fused.source, "fused_step.py"));
  CHECK(test::contains(fused.source, "h200-fused-step-cudnn"));
  std::vector<double> signed_err;
  for (const StepError& e : step_errors()) signed_err.push_back(e.graph);
  const ErrorQuantiles& band = fused.sets.at("step");
  CHECK(band.cases == static_cast<int>(signed_err.size()));
  CHECK(std::fabs(band.p10 - quantile(signed_err, 0.1)) <= 0.002);
  CHECK(std::fabs(band.p90 - quantile(signed_err, 0.9)) <= 0.002);
  // What `perfmodel decode` reports for a fused step is that band.
  Workload w;
  w.phase = Phase::decode;
  w.batch = 32;
  w.ctx = 3000;
  w.impl = Impl::fused;
  const Evaluation e = evaluate(test::catalogue().model("llama3-8b"), w, test::catalogue().card("h200"), &cal);
  CHECK(e.cost.time_band.high_s == test::approx(e.cost.time_s / (1 + band.p10)).epsilon(1e-9));
  CHECK(e.cost.time_band.low_s == test::approx(e.cost.time_s / (1 + band.p90)).epsilon(1e-9));
}

TEST_CASE("the H100's fused step band is h100-fusedh100's error, carried to the H100 in place of the H200's") {
  // error_bands.py h100-sxm writes sibling_error_bands: h100-sxm into the H200's file; transfer_calibration gives them
  // to `--card h100-sxm` (calibration_transfer.hpp).
  const Card card = test::catalogue().card("h100-sxm");
  const Calibration carried = *sibling_calibration(test::catalogue(), card);
  std::vector<double> signed_err;
  for (const char* set : {"h100-fusedh100/grid", "h100-fusedh100/new"})
    for (const StepError& e : errors_with(carried, "h100-sxm", set)) signed_err.push_back(e.graph);
  REQUIRE(signed_err.size() == 102);
  const ErrorBands& fused = carried.error_bands.at("fused");
  CHECK(test::contains(fused.source, "h100-fusedh100"));
  CHECK(test::contains(fused.source, "measured on h100-sxm"));
  const ErrorQuantiles& band = fused.sets.at("step");
  CHECK(band.cases == 102);
  CHECK(std::fabs(band.p10 - quantile(signed_err, 0.1)) <= 0.002);
  CHECK(std::fabs(band.p90 - quantile(signed_err, 0.9)) <= 0.002);
}
