// Branch cudnnsplit (issue 10): cuDNN's masked decode SDPA inside a CUDA graph splits by KEY COUNT
// and its merge (lean_reduction_kernel) runs ~1.9 us there, not the 3.35-3.81 us the harness fit
// gave the merge (the harness fit only sees the two kernels' sum).
// - validation/results/h200-graphroles/graphroles.jsonl: the SDPA alone in a graph (b1 and b4, head
//   dim 64 and 128, 256-4144 keys): the split grids and the merge's time (the fit set of kGraphMerge).
// - validation/results/h200-compiled2/compiled2.jsonl: 9 compiled steps' traces ([name, us, gap,
//   grid CTAs, threads]); the four b1 steps split: held out.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "../lib/src/kernels/decode_split.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

std::vector<YAML::Node> jsonl(const std::string& path) {
  std::ifstream in(test::root() + path);
  std::vector<YAML::Node> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(YAML::Load(line));
  return out;
}

bool has(const std::string& name, const char* part) { return name.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("cuDNN's graph split count follows the key count (h200-graphroles, h200-compiled2 grids)") {
  int split_calls = 0;
  std::vector<double> merges;
  for (const YAML::Node& r : jsonl("/validation/results/h200-graphroles/graphroles.jsonl")) {
    if (r["kind"].as<std::string>() != "sdpa") continue;
    const int64_t kv = r["kv_len"].as<int64_t>(), batch = r["batch"].as<int64_t>();
    CAPTURE(kv);
    CAPTURE(batch);
    bool merged = false;
    std::vector<double> m;
    int64_t grid_x = 0;
    for (const YAML::Node& k : r["trace"]) {
      const std::string n = k[0].as<std::string>();
      if (has(n, "lean_reduction")) { merged = true; m.push_back(k[1].as<double>()); }
      if (has(n, "sdpa")) grid_x = k[2][0].as<int64_t>();
    }
    // Batch 4 (128 CTAs, half the SMs busy) never splits; batch 1 (32 CTAs) by the key count.
    const int64_t expect = batch == 1 ? cudnn_graph_splits(kv, r["heads"].as<int64_t>(), 132) : 1;
    CHECK(grid_x == expect);
    CHECK(merged == (expect > 1));
    if (merged) { ++split_calls; merges.push_back(quantile(m, 0.5)); }
  }
  CHECK(split_calls == 8);
  // kGraphMerge (attention_decode_cudnn.cpp) is this median.
  CHECK(quantile(merges, 0.5) == test::approx(1.92).epsilon(0.01));

  // Every split kernel of the compiled steps: grid CTAs = batch x heads x splits (heads: K / V
  // repeated before the call), splits from the key count alone.
  int steps = 0;
  for (const YAML::Node& r : jsonl("/validation/results/h200-compiled2/compiled2.jsonl")) {
    const Model m = test::catalogue().model(r["model"].as<std::string>());
    const int64_t kv = r["kv_len"].as<int64_t>(), batch = r["batch"].as<int64_t>();
    bool merged = false;
    for (const YAML::Node& k : r["trace"]) merged = merged || has(k[0].as<std::string>(), "lean_reduction");
    if (!merged) continue;
    ++steps;
    for (const YAML::Node& k : r["trace"])
      if (has(k[0].as<std::string>(), "sdpa")) CHECK(k[3].as<int64_t>() == batch * m.heads * cudnn_graph_splits(kv, batch * m.heads, 132));
  }
  CHECK(steps == 4);
}

TEST_CASE("the split count in a graph: whole key tiles, at most two split CTAs an SM (branches graphsplit, maskocc)") {
  // Every committed compiled split grid at head dim 128 or less. The key count alone (at most 8 splits)
  // gave 8 to Yi-34B (56 heads, 948 keys: 224 CTAs measured), Codestral-22B (48, 1148: 192) and Code
  // Llama-34B (64, 2048: 256).
  int grids = 0;
  for (const char* f : {"h200-compiled2/compiled2.jsonl", "h200-heldout19/compiled/compiled19.jsonl",
                        "h200-heldout20/compiled/compiled20.jsonl", "h200-heldout21/compiled/compiled21.jsonl",
                        "h200-heldout22/compiled/compiled22.jsonl"}) {
    for (const YAML::Node& r : jsonl(std::string("/validation/results/") + f)) {
      const Model m = test::catalogue().model(r["model"].as<std::string>());
      if (m.head_dim > 128) continue;  // the x256 kernel: two CTAs a head (Falcon3-7B)
      const int64_t kv = r["kv_len"].as<int64_t>(), batch = r["batch"].as<int64_t>();
      bool merged = false;
      for (const YAML::Node& k : r["trace"]) merged = merged || has(k[0].as<std::string>(), "lean_reduction");
      if (!merged) continue;
      CAPTURE(r["model"].as<std::string>());
      for (const YAML::Node& k : r["trace"])
        if (has(k[0].as<std::string>(), "sdpa")) CHECK(k[3].as<int64_t>() == batch * m.heads * cudnn_graph_splits(kv, batch * m.heads, 132));
      ++grids;
    }
  }
  CHECK(grids == 15);
  // h200-maskocc's sweep (nothing fitted): the grid's x at 8-96 heads x 948 / 1548 / 2096 keys, head dims 64
  // and 128, batch 1-32. 2096 keys at 8 and 16 heads split 16 ways, past the old cap of 8; 948 keys (7
  // whole tiles) 4 ways at every head count.
  int calls = 0, sixteen = 0;
  for (const YAML::Node& r : jsonl("/validation/results/h200-maskocc/maskocc.jsonl")) {
    if (r["kind"].as<std::string>() != "sdpa") continue;
    const int64_t kv = r["kv_len"].as<int64_t>(), ctas = r["batch"].as<int64_t>() * r["heads"].as<int64_t>();
    CAPTURE(kv);
    CAPTURE(ctas);
    const int64_t expect = 2 * ctas <= 132 ? cudnn_graph_splits(kv, ctas, 132) : 1;
    for (const YAML::Node& k : r["trace"])
      if (has(k[0].as<std::string>(), "sdpa")) CHECK(k[2][0].as<int64_t>() == expect);
    sixteen += expect == 16 ? 1 : 0;
    ++calls;
  }
  CHECK(calls == 63);
  CHECK(sixteen == 2);
}

TEST_CASE("the split path in a graph: split kernel + gap + merge against the compiled steps (held out)") {
  // The compiled block with the harness idle taken off the floors (h200-compblock's calibration:
  // the floors are each kernel's own time, the step's graph gap added per launch), so the op's
  // price is comparable with the traces' kernel times and the gap before the merge.
  const Calibration cal = load_calibration(test::root() + "/validation/results/h200-compblock/compblock.calibration.yaml");
  const Roofs r = make_roofs(test::catalogue().card("h200"), &cal, Impl::compiled);
  REQUIRE(r.harness_idle_s > 0);
  std::map<std::string, double> err;
  for (const YAML::Node& s : jsonl("/validation/results/h200-compiled2/compiled2.jsonl")) {
    std::vector<double> split, merge, gap;
    const YAML::Node t = s["trace"];
    for (size_t i = 1; i < t.size(); ++i) {
      const std::string n = t[i][0].as<std::string>();
      if (has(n, "lean_reduction")) { merge.push_back(t[i][1].as<double>()); gap.push_back(t[i][2].as<double>()); }
      else if (has(n, "sdpa")) split.push_back(t[i][1].as<double>());
    }
    if (merge.empty()) continue;
    const Model m = test::catalogue().model(s["model"].as<std::string>());
    const Op op = ops::attention_decode_cudnn("sdpa", s["batch"].as<int64_t>(), m.heads, m.heads,
                                              s["kv_len"].as<int64_t>(), m.head_dim, DType::bf16, DType::bf16);
    const double measured = (quantile(split, 0.5) + quantile(gap, 0.5) + quantile(merge, 0.5)) * 1e-6;
    err[s["model"].as<std::string>()] = price(op, r, Impl::compiled).time_s / measured - 1;
  }
  REQUIRE(err.size() == 4);
  for (const auto& [k, e] : err) MESSAGE(k << " " << 100 * e << " %");
  // Before (the harness-fitted merge, the split priced as filling the SMs): TinyLlama +10.9,
  // Llama-3-8B +0.6, Qwen2.5-7B -7.7, Llama-2-7B -5.8 % (median |.| 6.8 %). After: +0.7, -4.6,
  // -1.1, -10.8 % (median 2.9 %).
  CHECK(std::fabs(err["tinyllama-1.1b"]) <= 0.03);
  CHECK(std::fabs(err["llama3-8b"]) <= 0.05);
  CHECK(std::fabs(err["qwen2.5-7b"]) <= 0.03);
  // Left: Llama-2-7B's 3-tile walks at two waves stream 3.6 TB/s where the fill gives 4.2.
  CHECK(err["llama2-7b"] < -0.08);
  CHECK(err["llama2-7b"] > -0.12);
}
