// The perfmodel CLI, run as a user runs it: exit codes (0 ok, 2 bad input), stdout, and ONE line
// on stderr for every error (ARCHITECTURE.md: Errors).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_support.hpp"
#include "perfmodel/calibration.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cli_test;

double num(const test::Json& j, const std::string& path) {
  const test::Json* v = j.at(path);
  REQUIRE_MESSAGE(v, "no " << path);
  REQUIRE(v->type == test::Json::Type::number);
  return v->num;
}

std::string text(const test::Json& j, const std::string& path) {
  const test::Json* v = j.at(path);
  REQUIRE_MESSAGE(v, "no " << path);
  REQUIRE(v->type == test::Json::Type::string);
  return v->str;
}

bool flag(const test::Json& j, const std::string& path) {
  const test::Json* v = j.at(path);
  REQUIRE_MESSAGE(v, "no " << path);
  REQUIRE(v->type == test::Json::Type::boolean);
  return v->b;
}

}  // namespace

TEST_CASE("decode prints the step time") {
  const Run r = cli("decode --model llama2-7b --card a100 --ctx 2048");
  SHOW(r);
  CHECK(r.rc == 0);
  CHECK(test::contains(r.out, "step time"));
  CHECK(test::contains(r.out, "Llama-2-7B"));
  CHECK(r.err.empty());
}

TEST_CASE("decode --format json carries meta, inputs, the step, ops and the analysis") {
  const Run r = cli("decode --model llama2-7b --card a100 --ctx 2048 --format json");
  CHECK(r.rc == 0);
  for (const char* key : {"schema_version", "step", "time_s", "ops", "analysis", "b_star", "max_batch", "tpot_s",
                          "tokens_per_s", "weight_bytes", "kv_bytes_per_token", "ai_max", "ridge"})
    CHECK(test::contains(r.out, std::string("\"") + key + "\""));
  const test::Json j = json_of(r);
  CHECK(num(j, "meta.schema_version") == 1);
  CHECK(j.at("meta.command")->str == "decode");
  CHECK(j.at("inputs.card.key")->str == "a100-80gb-sxm");
  CHECK(j.at("inputs.model.key")->str == "llama2-7b");
  CHECK(num(j, "inputs.workload.ctx") == 2048);
  CHECK(num(j, "step.time_s") > 0);
  REQUIRE(j.at("ops")->type == test::Json::Type::array);
  CHECK(j.at("ops")->arr.size() > 10);
  // The analysis, by hand (see test_analysis / test_seeds): weights 13,476,831,232 B, KV 524,288 B
  // per token, AI_max 12.55, ridge 153, b* never, 59 sequences fit.
  // (to 1e-9 here; the exact value is checked in "JSON carries exact values" below)
  CHECK(num(j, "analysis.weight_bytes") == test::approx(13476831232.0).epsilon(1e-9));
  CHECK(num(j, "analysis.kv_bytes_per_token") == 524288.0);
  CHECK(num(j, "analysis.ai_max") == test::approx(12.551).epsilon(0.001));
  CHECK(num(j, "analysis.ridge") == test::approx(153).epsilon(0.003));
  CHECK(j.at("analysis.b_star")->str == "never");
  CHECK(num(j, "analysis.max_batch") == 59);
  // TPOT is the step time; tokens/s its inverse at batch 1.
  CHECK(num(j, "analysis.tpot_s") == test::approx(num(j, "step.time_s")));
  CHECK(num(j, "analysis.tokens_per_s") == test::approx(1 / num(j, "step.time_s")));
}

TEST_CASE("decode --format csv: a header line of op columns, then one line per op") {
  const Run r = cli("decode --model llama2-7b --card a100 --ctx 2048 --format csv");
  SHOW(r);
  CHECK(r.rc == 0);
  const std::string first = r.out.substr(0, r.out.find('\n'));
  CHECK(first.rfind("name,kind,", 0) == 0);
  CHECK(test::contains(first, "time_s"));
  CHECK(test::contains(r.out, "\nlm_head,gemm,"));
}

TEST_CASE("gemm: the 1793 / 1792 wave cliff on A100 with 256x128 tiles") {
  const test::Json a = json_of(cli("gemm --card a100 --m 1793 --n 1793 --k 1793 --tile 256x128 --format json"));
  CHECK(num(a, "tiles") == 120);
  CHECK(num(a, "waves") == 2);
  CHECK(a.at("tile")->str == "256x128");
  CHECK(num(a, "wave_efficiency") == test::approx(120.0 / 216));
  const test::Json b = json_of(cli("gemm --card a100 --m 1792 --n 1792 --k 1792 --tile 256x128 --format json"));
  CHECK(num(b, "tiles") == 98);
  CHECK(num(b, "waves") == 1);
  CHECK(num(b, "wave_efficiency") == test::approx(98.0 / 108));
  CHECK(num(a, "flops") == test::approx(2.0 * 1793 * 1793 * 1793).epsilon(1e-9));
  // Bad tile spelling.
  expect_input_error(cli("gemm --card a100 --m 8 --n 8 --k 8 --tile 256by128"), {"--tile"});
}

TEST_CASE("gemm --impl: cuBLASLt through torch.matmul in every profile; eager adds the host's dispatch") {
  const std::string g = "gemm --card h200 --m 16 --n 4096 --k 4096 --format json --impl ";
  const test::Json f = json_of(cli(g + "fused")), e = json_of(cli(g + "eager")), c = json_of(cli(g + "compiled"));
  // The same kernel under the same keys: without a calibration (no profile's gemm block) all three
  // price one device time; calibrated, two profiles price the same device time exactly when they
  // carry the same GEMM keys (the card's, or the same kernel-only gemm block), else the block's.
  const std::string n = "gemm --card h200 --m 16 --n 4096 --k 4096 --format json --no-calibration --impl ";
  const test::Json fn = json_of(cli(n + "fused")), en = json_of(cli(n + "eager")), cn = json_of(cli(n + "compiled"));
  CHECK(num(en, "device_time_s") == test::approx(num(fn, "device_time_s")));
  CHECK(num(cn, "device_time_s") == test::approx(num(fn, "device_time_s")));
  const perfmodel::Calibration cal = perfmodel::load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  auto block = [&](const char* profile) {
    const perfmodel::ProductionGemm& g = perfmodel::find_profile(cal.profiles, profile)->gemm;
    return std::vector<double>{g.measured() ? 1.0 : 0.0, g.fixed_s.value_or(0), g.split_k_reduce_s.value_or(0),
                               g.cta_walk_per_1024_k_s.value_or(0), g.stream_efficiency.value_or(0),
                               g.cta_walk_latency_share.value_or(-1)};
  };
  for (const auto& [other, name] : {std::pair{&e, "eager"}, std::pair{&c, "compiled"}}) {
    CAPTURE(name);
    if (block(name) == block("fused")) CHECK(num(*other, "device_time_s") == test::approx(num(f, "device_time_s")));
    else CHECK(num(*other, "device_time_s") != test::approx(num(f, "device_time_s")));
  }
  CHECK(num(f, "host_time_s") == 0);
  CHECK(num(e, "host_time_s") > 0);
  CHECK(num(e, "time_s") >= num(e, "host_time_s"));
  CHECK(e.at("inputs.impl")->str == "eager");
  expect_input_error(cli("gemm --card h200 --m 16 --n 16 --k 16 --impl graph"), {"--impl"});
}

TEST_CASE("decode --impl compiled: one CUDA graph after the call's host time; GQA repeats the static cache") {
  const test::Json d = json_of(cli("decode --model llama3-8b --card h200 --batch 8 --ctx 1024 --impl compiled --format json"));
  // The H200 calibration's graph_call_host and graph_call_host_per_input x the graph's 388 static
  // inputs (Llama-3-8B's 32 layers: 4 + 12 a layer; branch hostreplay): the GPU waits for it; inside
  // the replay graph_kernel_gap per launch (validation/results/h200-host-probe), a split-K GEMM's
  // splitKreduce a launch of its own (branch compfuse).
  double reduces = 0;
  for (const test::Json& op : d.at("ops")->arr)
    if (op.at("kind")->str == "gemm" && op.get("split_k") && op.at("split_k")->num > 1) reduces += op.at("launches")->num;
  CHECK(reduces == 5 * 32);  // q, k, v, o and down split at batch 8 (h200-compiled2's Mistral-7B b16: the same five)
  const double host = 230.8e-6 + 0.642e-6 * 388;
  CHECK(num(d, "step.host_time_s") == test::approx(host));
  CHECK(num(d, "step.time_s") ==
        test::approx(num(d, "step.device_time_s") + host + 0.373e-6 * (num(d, "step.launches") + reduces)));
  // An uncalibrated card has no measured host time for a compiled call.
  const test::Json h = json_of(cli("decode --model llama3-8b --card a100 --batch 8 --ctx 1024 --impl compiled --format json"));
  CHECK(num(h, "step.host_time_s") == 0);
  CHECK(num(h, "step.time_s") == test::approx(num(h, "step.device_time_s")));
  const test::Json f = json_of(cli("decode --model llama3-8b --card h200 --batch 8 --ctx 1024 --format json"));
  CHECK(num(d, "step.device_time_s") > num(f, "step.device_time_s"));  // unfused GEMMs, repeat_kv, no split-KV
  // MoE / MLA under Inductor were never measured: refused, not guessed.
  expect_input_error(cli("decode --model mixtral-8x7b --card h200 --impl compiled"), {"--impl compiled", "dense"});
}

TEST_CASE("prefill --impl compiled runs uncompiled, as transformers' generate() runs the prompt") {
  // generate() compiles the decode step only (transformers 5.17 generation/utils.py; docs/profiles.md):
  // the prompt's forward is the eager profile's step, kernels, host time and all.
  const char* step = "prefill --model llama3-8b --card h200 --batch 1 --ctx 2048 --format json --impl ";
  const test::Json c = json_of(cli(std::string(step) + "compiled")), e = json_of(cli(std::string(step) + "eager"));
  CHECK(num(c, "step.time_s") == test::approx(num(e, "step.time_s")));
  CHECK(num(c, "step.device_time_s") == test::approx(num(e, "step.device_time_s")));
  CHECK(num(c, "step.launches") == num(e, "step.launches"));
  CHECK(num(c, "step.host_time_s") > 1e-3);  // eager's per-launch host time, not one graph call's
  CHECK(c.at("inputs.workload.impl")->str == "compiled");
  // The decode step stays the compiled graph.
  const char* dec = "decode --model llama3-8b --card h200 --batch 1 --ctx 2048 --format json --impl ";
  CHECK(num(json_of(cli(std::string(dec) + "compiled")), "step.launches") <
        num(json_of(cli(std::string(dec) + "eager")), "step.launches"));
}

TEST_CASE("JSON carries exact values") {
  const test::Json d = json_of(cli("decode --model llama2-7b --card a100 --ctx 2048 --format json"));
  CHECK(num(d, "analysis.weight_bytes") == 13476831232.0);
  const test::Json g = json_of(cli("gemm --card a100 --m 1793 --n 1793 --k 1793 --format json"));
  CHECK(num(g, "flops") == 2.0 * 1793 * 1793 * 1793);
}

TEST_CASE("op --kind add: seed 000's 64·2^20 bf16 add on RTX 4080 is 0.56 ms on the roofline") {
  const test::Json j = json_of(cli("op --card rtx-4080 --kind add --rows 64 --cols 1048576 --format json"));
  CHECK(num(j, "bytes") == 6.0 * 67108864);
  CHECK(num(j, "flops") == 67108864.0);
  CHECK(num(j, "roofline_time_s") == test::approx(6.0 * 67108864 / 716.8e9));
  CHECK(j.at("bound")->str == "memory");
  // The unfused GELU moves 9x the fused bytes.
  const test::Json f = json_of(cli("op --card rtx-4080 --kind gelu --rows 16384 --cols 1536 --format json"));
  const test::Json u = json_of(cli("op --card rtx-4080 --kind gelu --unfused --rows 16384 --cols 1536 --format json"));
  CHECK(num(u, "bytes") == 9 * num(f, "bytes"));
  expect_input_error(cli("op --card rtx-4080 --kind frobnicate --rows 4 --cols 4"), {"--kind"});
  // A flag the kind does not read is refused, not dropped.
  expect_input_error(cli("op --card h200 --kind rotary --rows 2 --heads 32 --kv-heads 8 --head-dim 128"), {"--rows", "rotary"});
  expect_input_error(cli("op --card h200 --kind rmsnorm --rows 2 --cols 4096 --heads 32"), {"--heads", "rmsnorm"});
  // A compiled op of two kernels (Inductor's q and k rotations under GQA) is a piece of a graph: its
  // kernels back to back, no graph call of its own (that host time is the step's).
  const test::Json c = json_of(cli("op --card h200 --impl compiled --kind rotary --q-len 2048 --heads 32 --kv-heads 8 "
                                   "--head-dim 128 --format json"));
  REQUIRE(c.at("kernels")->arr.size() == 2);
  double kernels = 0;
  for (const test::Json& k : c.at("kernels")->arr) kernels += k.at("device_time_s")->num;
  CHECK(num(c, "host_time_s") == 0);
  CHECK(num(c, "time_s") == doctest::Approx(kernels).epsilon(1e-9));
  CHECK(num(c, "time_s") < 50e-6);  // 230 us when the graph's call was priced per op
}

TEST_CASE("sweep-batch on T4 with the default dtype (the issue's example)") {
  const Run r = cli("sweep-batch --model tinyllama --card t4 --ctx 256 --format json");
  CHECK(r.rc == 0);
  const test::Json j = json_of(r);
  REQUIRE(j.at("rows"));
  CHECK_FALSE(j.at("rows")->arr.empty());
}

TEST_CASE("sweep-batch --format json has rows up to the memory limit (T4, fp16)") {
  const test::Json j = json_of(cli("sweep-batch --model tinyllama --card t4 --ctx 256 --dtype fp16 --format json"));
  REQUIRE(j.at("rows"));
  const auto& rows = j.at("rows")->arr;
  REQUIRE(rows.size() >= 2);
  CHECK(rows.front().get("batch")->num == 1);
  // Batches double, and every listed batch fits.
  for (size_t i = 1; i + 1 < rows.size(); ++i) CHECK(rows[i].get("batch")->num == 2 * rows[i - 1].get("batch")->num);
  for (const auto& row : rows) CHECK(row.get("fits")->b);
  CHECK(rows.back().get("batch")->num == num(j, "summary.max_batch"));
  // Seed 004: AI_max 381.5 at n = 256; ridge 203.
  CHECK(num(j, "summary.ai_max") == test::approx(381.49).epsilon(0.001));
  CHECK(num(j, "summary.ridge") == test::approx(203.1).epsilon(0.002));
  // Throughput grows with batch.
  CHECK(rows.back().get("tokens_per_s")->num > rows.front().get("tokens_per_s")->num);
}

TEST_CASE("occupancy: seed 002's grid on RTX 4080") {
  const test::Json j =
      json_of(cli("occupancy --card rtx-4080 --threads 256 --registers 32 --grid 240 --format json"));
  CHECK(num(j, "result.blocks_per_sm") == 6);
  CHECK(num(j, "result.warps_per_sm") == 48);
  CHECK(num(j, "result.occupancy") == test::approx(1.0));
  CHECK(j.at("result.limited_by")->str == "threads");
  CHECK(num(j, "result.grid_threads") == 61440);
  CHECK(num(j, "result.grid_warps") == 1920);
  CHECK(num(j, "result.waves") == 1);
  const test::Json s = json_of(cli("occupancy --card rtx-4080 --threads 256 --smem '48 KiB' --grid 240 --format json"));
  CHECK(j.at("result.limited_by"));
  CHECK(s.at("result.limited_by")->str == "shared_memory");
  CHECK(num(s, "result.blocks_per_sm") == 2);
  const Run table = cli("occupancy --card rtx-4080 --threads 256 --registers 128 --grid 240");
  SHOW(table);
  CHECK(table.rc == 0);
  CHECK(test::contains(table.out, "registers"));
  expect_input_error(cli("occupancy --card rtx-4080 --threads 4096"), {"threads"});
}

TEST_CASE("cards and models list the catalogue") {
  const Run c = cli("cards");
  SHOW(c);
  CHECK(c.rc == 0);
  for (const auto& key : test::catalogue().card_keys()) CHECK(test::contains(c.out, key));
  const test::Json cj = json_of(cli("cards --format json"));
  CHECK(cj.at("cards")->arr.size() == test::catalogue().card_keys().size());
  const Run m = cli("models");
  SHOW(m);
  CHECK(m.rc == 0);
  for (const auto& key : test::catalogue().model_keys()) CHECK(test::contains(m.out, key));
  const test::Json mj = json_of(cli("models --format json"));
  REQUIRE(mj.at("models")->arr.size() == test::catalogue().model_keys().size());
  for (const auto& row : mj.at("models")->arr)
    if (row.get("key")->str == "llama2-7b") CHECK(row.get("parameters")->num == 6738415616.0);
}

TEST_CASE("roofline --svg writes an SVG file") {
  const fs::path svg = tmp_dir() / "roofline.svg";
  fs::remove(svg);
  const Run r = cli("roofline --model llama2-7b --card a100 --batch 16 --svg '" + svg.string() + "'");
  SHOW(r);
  CHECK(r.rc == 0);
  REQUIRE(fs::exists(svg));
  const std::string text = slurp(svg);
  CHECK(text.rfind("<svg", 0) == 0);
  CHECK(test::contains(text, "</svg>"));
  CHECK(test::contains(text, "qkv_proj"));
  fs::remove(svg);
  const test::Json j = json_of(cli("roofline --model llama2-7b --card a100 --format json"));
  CHECK(num(j, "roofs.nominal_ridge") == test::approx(153).epsilon(0.003));
}

TEST_CASE("prefill and ops run") {
  const Run p = cli("prefill --model tinyllama --card a100 --batch 2 --ctx 512");
  SHOW(p);
  CHECK(p.rc == 0);
  CHECK(test::contains(p.out, "TTFT"));
  const test::Json o = json_of(cli("ops --model llama2-7b --card a100 --batch 8 --format json"));
  bool tiled = false;
  for (const auto& op : o.at("ops")->arr) tiled = tiled || op.get("tiles");
  CHECK(tiled);  // GEMMs carry their tiles and waves
}

TEST_CASE("every main subcommand's --help exits 0 and shows an example") {
  for (const char* cmd : {"decode", "prefill", "sweep-batch", "ops", "gemm", "op", "roofline", "occupancy",
                          "cards", "models"}) {
    CAPTURE(cmd);
    const Run r = cli(std::string(cmd) + " --help");
    SHOW(r);
    CHECK(r.rc == 0);
    CHECK(test::contains(r.out, "Example"));
  }
  const Run top = cli("--help");
  CHECK(top.rc == 0);
  CHECK(test::contains(top.out, "Example"));
}

TEST_CASE("the example in each main subcommand's --help runs") {
  const fs::path dir = tmp_dir() / "examples";
  fs::create_directories(dir);
  // sweep-batch's example (`--model tinyllama --card t4 --ctx 256`) is the issue's own T4 example
  // (bf16 on a card without bf16 once failed it; "sweep-batch on T4 with the default dtype" above).
  for (const char* cmd :
       {"decode", "prefill", "ops", "gemm", "op", "roofline", "occupancy", "sweep-batch", "cards", "models"}) {
    CAPTURE(cmd);
    const Run help = cli(std::string(cmd) + " --help");
    const size_t at = help.out.find("Example:\n  perfmodel ");
    REQUIRE(at != std::string::npos);
    const size_t start = at + std::string("Example:\n  perfmodel ").size();
    const std::string example = help.out.substr(start, help.out.find('\n', start) - start);
    CAPTURE(example);
    const Run r = cli(example, dir.string());
    SHOW(r);
    CHECK(r.rc == 0);
    CHECK(r.err.empty());
    CHECK_FALSE(r.out.empty());
  }
  fs::remove_all(dir);
}

TEST_CASE("validate, calibrate and accuracy --help exit 0 and show an example") {
  for (const char* cmd : {"validate", "calibrate", "accuracy"}) {
    CAPTURE(cmd);
    const Run r = cli(std::string(cmd) + " --help");
    SHOW(r);
    CHECK(r.rc == 0);
    CHECK(test::contains(r.out, "Example"));
  }
}

TEST_CASE("accuracy --format json lists every production case as its profile prices it") {
  const Run r = cli("accuracy --card h200 --measured '" + test::root() +
                    "/validation/results/h200-eager-heldout/kernels.json' --format json");
  REQUIRE(r.rc == 0);
  const test::Json j = json_of(r);
  const test::Json* cases = j.at("profile_cases");
  REQUIRE(cases);
  REQUIRE(cases->type == test::Json::Type::array);
  // Each held-out eager case once under the eager profile; torch.eager and hf.eager kernels.
  int eager = 0;
  for (const test::Json& c : cases->arr) {
    const double p = num(c, "predicted_s"), m = num(c, "measured_s");
    CHECK(p > 0);
    CHECK(m > 0);
    CHECK(num(c, "error") == test::approx(p / m - 1).epsilon(1e-9));
    if (c.at("profile")->str == "eager") ++eager;
  }
  CHECK(eager == 31);
}

TEST_CASE("bad input: exit code 2 and one line on stderr") {
  expect_input_error(cli("decode --card a10O"), {"unknown card 'a10O'"});
  expect_input_error(cli("decode --model llama2-7bb"), {"unknown model 'llama2-7bb'", "llama2-7b"});
  expect_input_error(cli("decode --batchh 4"), {"--batchh", "did you mean --batch"});
  expect_input_error(cli("decode --batch 0"), {"--batch"});
  expect_input_error(cli("decode --batch -4"), {"--batch"});
  expect_input_error(cli("decode --ctx abc"), {"--ctx"});
  expect_input_error(cli("decode --format xml"), {"--format", "xml"});
  expect_input_error(cli("decode --dtype fp7"), {"fp7", "bf16"});
  expect_input_error(cli("decode --impl lazy"), {"--impl"});
  expect_input_error(cli("decode --mem-util 1.5"), {"--mem-util"});
  expect_input_error(cli("gemm --card a100 --m 8 --n 8"), {"--k"});
  expect_input_error(cli("frobnicate"), {"unknown command 'frobnicate'", "decode"});
  // A model file with an unknown key: the ConfigError's file:line:col on one line.
  expect_input_error(cli("decode --model '" + test::data("bad/model-unknown-key.yaml") + "'"),
                     {"model-unknown-key.yaml:4:1", "did you mean hf_repo"});
  // MoE keys a dense model type does not have: refused.
  expect_input_error(cli("decode --model '" + test::data("hf/llama-with-moe-keys.json") + "'"), {"moe_num_experts"});
  // No command at all: usage and exit 2.
  const Run none = cli("");
  CHECK(none.rc == 2);
  CHECK(test::contains(none.out, "Usage"));
}

TEST_CASE("an unknown card suggests a close name") {
  const Run r = cli("decode --card a10O");
  expect_input_error(r, {"did you mean", "a100"});
}

TEST_CASE("a batch that does not fit: exit 2, the result on stdout, the reason on stderr (fp16)") {
  const Run r = cli("decode --model llama2-70b --card t4 --dtype fp16");
  SHOW(r);
  CHECK(r.rc == 2);
  CHECK(test::contains(r.out, "step time"));
  CHECK(test::contains(r.out, "DOES NOT FIT"));
  CHECK(r.err_lines() == 1);
  CHECK(test::contains(r.err, "does not fit"));
  CHECK(test::contains(r.err, "largest batch"));
  CHECK(test::contains(r.err, "is 0"));
  // Llama-2-7B at batch 64 on A100 at 2048: the largest that fits is 59.
  const Run b = cli("decode --model llama2-7b --card a100 --ctx 2048 --batch 64 --format json");
  SHOW(b);
  CHECK(b.rc == 2);
  CHECK(test::contains(b.err, "59"));
  CHECK(b.err_lines() == 1);
  const test::Json j = json_of(b);
  CHECK_FALSE(j.at("analysis.fits")->b);
}

TEST_CASE("a batch that does not fit: the issue's literal T4 example") {
  const Run r = cli("decode --model llama2-70b --card t4");
  SHOW(r);
  CHECK(r.rc == 2);
  CHECK(test::contains(r.out, "step time"));
  CHECK(test::contains(r.err, "does not fit"));
  CHECK(test::contains(r.err, "largest batch"));
}

TEST_CASE("validate --on-gpu in a build without CUDA") {
  if (PERFMODEL_TEST_HAVE_CUDA) {
    MESSAGE("skipped: this build has the CUDA backend");
    return;
  }
  expect_input_error(cli("validate --on-gpu"), {"built without CUDA; rebuild with -DPERFMODEL_CUDA=ON"});
  expect_input_error(cli("calibrate --on-gpu"), {"built without CUDA; rebuild with -DPERFMODEL_CUDA=ON"});
}

// The GPU commands run in perfmodel-gpu beside perfmodel (issue 9 item 6); a perfmodel on its own
// says so in one line, with or without CUDA in the build.
TEST_CASE("validate / calibrate --on-gpu with no perfmodel-gpu beside perfmodel") {
  const fs::path dir = tmp_dir() / "lonely";
  fs::create_directories(dir);
  const fs::path exe = dir / "perfmodel";
  fs::copy_file(PERFMODEL_TEST_CLI, exe, fs::copy_options::overwrite_existing);
  REQUIRE_FALSE(fs::exists(dir / "perfmodel-gpu"));
  expect_input_error(cli("validate --on-gpu", "", exe.string()), {"built without CUDA", (dir / "perfmodel-gpu").c_str()});
  expect_input_error(cli("calibrate --on-gpu", "", exe.string()), {"built without CUDA", "perfmodel-gpu", "--from-raw"});
  const Run help = cli("validate --help", "", exe.string());
  CHECK(help.rc == 0);
  CHECK(test::contains(help.out, "--on-gpu"));
}

TEST_CASE("validate --help in a CUDA build is perfmodel-gpu's") {
  if (!PERFMODEL_TEST_HAVE_CUDA) {
    MESSAGE("skipped: this build has no CUDA backend");
    return;
  }
  REQUIRE(fs::exists(fs::path(PERFMODEL_TEST_CLI).parent_path() / "perfmodel-gpu"));
  const Run r = cli("validate --help");
  SHOW(r);
  CHECK(r.rc == 0);
  CHECK(test::contains(r.out, "--suite"));  // a flag only the backend's validate has
  CHECK(test::contains(r.out, "--max-seconds"));
}

TEST_CASE("validate --kernels in a CUDA build: production or backend, checked before the device") {
  if (!PERFMODEL_TEST_HAVE_CUDA) {
    MESSAGE("skipped: this build has no CUDA backend");
    return;
  }
  CHECK(test::contains(cli("validate --help").out, "--kernels"));
  expect_input_error(cli("validate --on-gpu --model tinyllama --kernels frobnicate"), {"--kernels", "frobnicate"});
  expect_input_error(cli("validate --on-gpu --model tinyllama --impl eager --kernels backend"), {"--kernels backend", "--impl fused"});
}

TEST_CASE("calibrate --only: sections checked before any measurement; its raw file is required") {
  expect_input_error(cli("calibrate --on-gpu --only chains,frobnicate --raw x.json"), {"--only", "frobnicate", "chains"});
  expect_input_error(cli("calibrate --on-gpu --only chains"), {"--raw"});
  expect_input_error(cli("calibrate --from-raw a.json --only chains --card h200"), {"--from-raw"});
}

TEST_CASE("calibrate --from-raw merges several raw files into the committed calibration") {
  const std::string out = std::string(PERFMODEL_TEST_TMP) + "/refit.calibration.yaml";
  const std::string dir = test::root() + "/validation/results/h200/";
  const Run r = cli("calibrate --card h200 --from-raw " + dir + "calibration-raw.json --from-raw " + dir +
                    "calibration-chains-raw.json --output " + out + " --format json");
  SHOW(r);
  REQUIRE(r.rc == 0);
  const perfmodel::Calibration c = perfmodel::load_calibration(out);
  CHECK(c.thread_chain_s[static_cast<int>(perfmodel::KernelId::silu_mul)].value_or(0) > 0);
  CHECK(c.kernel_floor_s > 0);
}

TEST_CASE("op --kind reads the kernel registry: registered names, --unfused attention, clear refusals") {
  const test::Json f = json_of(cli("op --card h200 --kind attention --batch 1 --heads 32 --kv-heads 32 --q-len 4096 --kv-len 4096 --head-dim 128 --causal --format json"));
  const test::Json u = json_of(cli("op --card h200 --kind attention --unfused --batch 1 --heads 32 --kv-heads 32 --q-len 4096 --kv-len 4096 --head-dim 128 --causal --format json"));
  CHECK(f.at("kernel")->str == "attention_prefill_fused");
  CHECK(u.at("kernel")->str == "attention_prefill_unfused");
  // seed 001: the unfused form moves the score matrix through memory three times
  CHECK(num(u, "bytes") > 10 * num(f, "bytes"));
  const test::Json kv = json_of(cli("op --card h200 --kind kv_append --batch 8 --heads 32 --kv-heads 8 --head-dim 128 --format json"));
  CHECK(kv.at("kernel")->str == "kv_append");
  expect_input_error(cli("op --card h200 --kind add --unfused --rows 4 --cols 4"), {"--unfused"});
  expect_input_error(cli("op --card h200 --kind gemm --rows 4 --cols 4"), {"perfmodel gemm"});
  expect_input_error(cli("op --card h200 --kind frobnicate --rows 4 --cols 4"), {"silu_mul", "rmsnorm"});
}

TEST_CASE("decode of MoE and MLA models: Mixtral-8x7B runs on an H200; DeepSeek-V3 does not fit and says so") {
  const Run r = cli("decode --model mixtral-8x7b --card h200 --format json");
  SHOW(r);
  CHECK(r.rc == 0);
  const test::Json j = json_of(r);
  CHECK(num(j, "analysis.parameters") == 46702792704.0);
  CHECK(num(j, "analysis.active_parameters") == 12879925248.0);
  CHECK(num(j, "inputs.model.active_parameters") == 12879925248.0);
  CHECK(num(j, "analysis.decode_weight_bytes") == test::approx(2.0 * 12879925248.0));  // batch 1: two experts
  CHECK(j.at("status.fits")->b);
  const Run table = cli("decode --model mixtral-8x7b --card h200");
  CHECK(table.rc == 0);
  CHECK(test::contains(table.out, "active parameters"));

  const Run ds = cli("decode --model deepseek-v3 --card h200 --format json");
  SHOW(ds);
  CHECK(ds.rc == 2);  // the report, then the one line saying why it does not fit
  CHECK(ds.err_lines() == 1);
  CHECK(test::contains(ds.err, "the largest batch that fits is 0"));
  const test::Json d = json_of(ds);
  CHECK_FALSE(d.at("status.fits")->b);
  CHECK(test::contains(d.at("status.reason")->str, "the weights alone need"));
  CHECK(num(d, "analysis.kv_bytes_per_token") == 70272.0);
}

TEST_CASE("sweep-batch on an MoE model: AI grows with batch as tokens share the touched experts") {
  const test::Json j = json_of(cli("sweep-batch --model qwen3-30b-a3b --card h200 --ctx 1024 --format json"));
  REQUIRE(j.at("rows"));
  const auto& rows = j.at("rows")->arr;
  REQUIRE(rows.size() >= 4);
  for (size_t i = 1; i < rows.size(); ++i) CHECK(rows[i].get("ai")->num > rows[i - 1].get("ai")->num);
}

TEST_CASE("--routing-skew: a skewed router touches fewer experts, so a decode step reads fewer bytes") {
  const test::Json u = json_of(cli("decode --model qwen3-30b-a3b --card h200 --batch 8 --format json"));
  const test::Json z = json_of(cli("decode --model qwen3-30b-a3b --card h200 --batch 8 --routing-skew 1 --format json"));
  CHECK(num(z, "analysis.decode_weight_bytes") < num(u, "analysis.decode_weight_bytes"));
  CHECK(num(z, "step.time_s") < num(u, "step.time_s"));
  CHECK(num(z, "inputs.workload.routing_skew") == 1);
  CHECK(u.at("inputs.workload.routing_skew") == nullptr);  // uniform: the key is left out
  expect_input_error(cli("decode --model qwen3-30b-a3b --card h200 --routing-skew 5"), {"--routing-skew"});
  expect_input_error(cli("decode --model qwen3-30b-a3b --card h200 --routing-skew nan"), {"routing-skew"});
}

TEST_CASE("--eager-cache: a contiguous DynamicCache's cat takes the vectorized kernel, faster than a cropped one") {
  const char* base = "decode --model qwen3-30b-a3b --card h200 --batch 16 --ctx 2048 --impl eager --format json";
  const test::Json cropped = json_of(cli(std::string(base) + " --eager-cache cropped"));
  const test::Json contiguous = json_of(cli(std::string(base) + " --eager-cache contiguous"));
  const test::Json plain = json_of(cli(base));
  CHECK(num(contiguous, "step.device_time_s") < num(cropped, "step.device_time_s"));
  CHECK(contiguous.at("inputs.workload.eager_cache")->str == "contiguous");
  CHECK(cropped.at("inputs.workload.eager_cache")->str == "cropped");
  // The default is what a generate() loop leaves: contiguous, said in the inputs.
  CHECK(plain.at("inputs.workload.eager_cache")->str == "contiguous");
  CHECK(num(plain, "step.device_time_s") == num(contiguous, "step.device_time_s"));
  // Not an eager step: no cache layout to name.
  CHECK(json_of(cli("decode --model qwen3-30b-a3b --card h200 --batch 16 --ctx 2048 --format json"))
            .at("inputs.workload.eager_cache") == nullptr);
  expect_input_error(cli("decode --model qwen3-30b-a3b --card h200 --impl eager --eager-cache strided"), {"--eager-cache"});
}

TEST_CASE("a host-bound eager step says its host pace varies by process and how to measure this machine's") {
  const auto eager = cli("decode --model llama2-7b --card h200 --ctx 512 --impl eager");
  CHECK(eager.rc == 0);
  CHECK(test::contains(eager.out, "host-bound"));
  CHECK(test::contains(eager.out, "calibrate --on-gpu --profile eager"));
  // A graph-replayed step's host is its graph launch, not the dispatch: no such note.
  CHECK_FALSE(test::contains(cli("decode --model llama2-7b --card h200 --ctx 512").out, "host-bound"));
  // Device-bound eager (a large batch at a long context): the host is hidden, no note.
  CHECK_FALSE(test::contains(cli("decode --model llama2-7b --card h200 --ctx 4096 --batch 16 --impl eager").out, "host-bound"));
}

TEST_CASE("--attn-implementation flash_attention_2: the eager step's attention is FlashAttention-2's kernel") {
  const char* base = "prefill --model llama3-8b --card h200 --ctx 2048 --impl eager --format json";
  const test::Json sdpa = json_of(cli(base));
  const test::Json fa2 = json_of(cli(std::string(base) + " --attn-implementation flash_attention_2"));
  // FlashAttention-2's mma.sync tiles run about half cuDNN's wgmma pace at 2048 tokens (h200-hfflash: the step's
  // kernels 59.0 ms against 56.8).
  CHECK(num(fa2, "step.device_time_s") > num(sdpa, "step.device_time_s"));
  CHECK(fa2.at("inputs.workload.attn_implementation")->str == "flash_attention_2");
  CHECK(sdpa.at("inputs.workload.attn_implementation") == nullptr);  // the default is left out
  expect_input_error(cli("prefill --model llama3-8b --card h200 --impl eager --attn-implementation flex"), {"--attn-implementation"});
  expect_input_error(cli("prefill --model llama3-8b --card h200 --attn-implementation flash_attention_2"), {"--attn-implementation", "--impl eager"});
}

TEST_CASE("a card without a calibration of its own takes its die's: H100 SXM from the H200's") {
  const Run own = cli("decode --model llama3-8b --card h100 --batch 8 --ctx 1024");
  REQUIRE(own.rc == 0);
  CHECK(own.out.find("calibrated on h200 (same die)") != std::string::npos);
  const test::Json j = json_of(cli("decode --model llama3-8b --card h100 --batch 8 --ctx 1024 --format json"));
  CHECK(text(j, "inputs.card.calibration_card") == "h200");
  CHECK(text(j, "inputs.card.calibration_file").find("h200.calibration.yaml") != std::string::npos);
  const test::Json none = json_of(cli("decode --model llama3-8b --card h100 --batch 8 --ctx 1024 --no-calibration --format json"));
  CHECK(!flag(none, "inputs.card.calibrated"));
  // The H200 itself: its own file.
  CHECK(text(json_of(cli("decode --model llama3-8b --card h200 --format json")), "inputs.card.calibration_card") == "h200");
  // Another die (H100 PCIe: 114 SMs) stays on the datasheet.
  CHECK(cli("decode --model llama3-8b --card h100-pcie").out.find("datasheet roofs") != std::string::npos);
}

TEST_CASE("docs/cli.md lists every flag each command's --help prints") {
  // docs/cli.md is the help text by hand; this keeps it from going stale (it had lost --gpu-rest and accuracy's --bands).
  // It is the CUDA-less build's text: validate and calibrate hand over to perfmodel-gpu where a CUDA build has one,
  // whose extra flags the page names in prose, so validate is left out (calibrate's flags are the same in both).
  std::ifstream in(test::root() + "/docs/cli.md");
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string doc = buf.str();
  for (const std::string cmd : {"decode", "prefill", "ops", "gemm", "op", "roofline", "occupancy", "tiling", "collective",
                                 "plan", "cards", "models", "accuracy", "calibrate"}) {
    const Run r = cli(cmd + " --help");
    REQUIRE(r.rc == 0);
    const size_t at = doc.find("\n## " + cmd + "\n");
    REQUIRE_MESSAGE(at != std::string::npos, "docs/cli.md has no section for " << cmd);
    const size_t end = doc.find("\n## ", at + 4);
    const std::string section = doc.substr(at, end == std::string::npos ? std::string::npos : end - at);
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("  --", 0) != 0) continue;
      const std::string flag = line.substr(2, line.find_first_of(" \t", 2) - 2);
      CAPTURE(cmd);
      CHECK_MESSAGE(section.find(flag) != std::string::npos, "docs/cli.md's " << cmd << " section lacks " << flag);
    }
  }
}
