// The "main" column of docs/accuracy-notes.md, "Branch actq14": main's pricing of h200-quant's act_quant
// cases before branch actq14, built against main's library (/work/main at 758d0ca; its act-quant pricing is 72fb92d's):
//   g++ -std=c++17 -O1 -I/work/main/lib/include -I/work/main/build/lib/generated before_main.cpp \
//       /work/main/build/lib/libperfmodel.a -lyaml-cpp -o before && ./before
// eager = eager_ops.cpp's old chain, compiled = quantized_linear's vLLM kernels, both on the profile's roofs (harness idle 0).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <algorithm>
#include <nlohmann/json.hpp>
#include "perfmodel/calibration.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "/work/main/lib/src/step/eager_ops.hpp"
using namespace perfmodel;
int main() {
  const std::string root = "/work/main";
  const Catalogue cat(root);
  const Card card = cat.card("h200");
  const Calibration cal = load_calibration(root + "/hardware/h200.calibration.yaml");
  Roofs eager = make_roofs(card, &cal, Impl::eager), compiled = make_roofs(card, &cal, Impl::compiled);
  eager.harness_idle_s = compiled.harness_idle_s = 0;
  std::ifstream f(root + "/validation/results/h200-quant/quant-1.json");
  const auto doc = nlohmann::json::parse(f);
  std::map<std::string, std::vector<double>> e;
  for (const auto& c : doc.at("cases")) {
    if (c.at("kernel") != "act_quant") continue;
    const bool comp = c.at("implementation") == "torch.compile";
    const std::string sc = c.at("scaling"), mode = c.at("act_quant");
    const int64_t m = c.at("m"), k = c.at("k");
    const bool dyn = mode == "dynamic", row = sc == "row";
    std::vector<Op> ops;
    if (comp) {
      if (!row && dyn) ops.push_back(ops::act_amax("a", m, k, DType::bf16));
      ops.push_back(ops::act_quant("q", m, k, DType::bf16, DType::fp8, row ? Scaling::row : Scaling::tensor, row));
    } else {
      Step s;
      eager_fp8_act_quant(s, "q", m, k, DType::bf16, dyn, row, 1);
      ops = s.ops;
    }
    const Roofs& r = comp ? compiled : eager;
    KernelCase kc;
    kc.rotated_bytes = c.value("rotated_bytes", 0.0);
    const double hit = harness_l2_hit(kc, r.l2_cyclic_capacity);
    double t = 0;
    for (Op& op : ops) { op.l2_hit = hit; t += price(op, r, Impl::fused).time_s; }
    const double err = std::fabs(t / c.at("measured_s").get<double>() - 1);
    const std::string impl = comp ? "compiled" : "eager";
    const std::string held = k == 8192 ? "" : "_fit";
    e[impl + "_" + sc + "_" + mode + held].push_back(err);
    e[impl + held].push_back(err);
  }
  for (auto& [k, v] : e) {
    std::sort(v.begin(), v.end());
    const double med = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    const double p90 = v[static_cast<size_t>(0.9 * (v.size() - 1))];
    std::printf("%-28s n=%2zu median %6.1f %% p90 %6.1f %%\n", k.c_str(), v.size(), 100 * med, 100 * p90);
  }
}
