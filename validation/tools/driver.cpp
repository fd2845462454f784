// perfmodel-gpu-driver: run the CUDA validation backend directly.
//   perfmodel-gpu-driver info
//   perfmodel-gpu-driver selftest [OUT.json]
//   perfmodel-gpu-driver suite OUT.json [--filter SUBSTR] [--max-seconds S] [--no-cold] [--git-sha SHA]
//   perfmodel-gpu-driver calibrate OUT.json
//   perfmodel-gpu-driver case kernel=gemm dtype=bf16 m=4096 n=4096 k=4096 [l2_resident=1] ...
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "perfmodel/validation/testing.hpp"
#include "perfmodel/validation/validation.hpp"

using namespace perfmodel;  // KernelId, DType, to_string, kernel_from_string
using namespace perfmodel::validation;

namespace {

std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char b[64];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

void print_row(const Case& c, const Result& r) {
  std::fprintf(stderr, "%-62s %s %s err=%.2e med=%10.3f us cold=%10.3f us n=%3d L=%4lld sets=%4d %s%s\n", c.name.c_str(),
               r.ok ? "ok " : "ERR", r.correct ? "correct" : "WRONG  ", r.max_rel_error, r.median_s * 1e6, r.cold_median_s * 1e6,
               r.samples, static_cast<long long>(r.launches_per_sample), r.buffer_sets, r.stop_reason.c_str(),
               r.ok ? "" : (" :: " + r.error).c_str());
}

std::vector<Case> selftest_cases() {
  std::vector<Case> v;
  auto add = [&](Case c) {
    if (c.name.empty()) c.name = to_string(c.kernel) + "_" + std::string(to_string(c.dtype));
    v.push_back(c);
  };
  for (DType dt : {DType::bf16, DType::fp16, DType::fp32}) {
    for (KernelId k : {KernelId::copy, KernelId::add, KernelId::gelu_fused, KernelId::gelu_unfused, KernelId::silu_mul, KernelId::rmsnorm,
                     KernelId::layernorm, KernelId::softmax_naive, KernelId::softmax_fused}) {
      Case c; c.kernel = k; c.dtype = dt; c.rows = 37; c.cols = 520;
      c.name = to_string(k) + "_" + std::string(to_string(dt)) + "_37x520";
      add(c);
    }
    Case e; e.kernel = KernelId::embedding; e.dtype = dt; e.rows = 50; e.cols = 264; e.vocab = 777; e.name = "embedding_" + std::string(to_string(dt)); add(e);
    Case r; r.kernel = KernelId::rotary; r.dtype = dt; r.batch = 3; r.q_len = 5; r.kv_len = 9; r.heads = 8; r.kv_heads = 2; r.head_dim = 64;
    r.name = "rotary_" + std::string(to_string(dt)); add(r);
    Case a; a.kernel = KernelId::kv_append; a.dtype = dt; a.batch = 3; a.q_len = 4; a.kv_len = 11; a.kv_heads = 2; a.head_dim = 64;
    a.name = "kv_append_" + std::string(to_string(dt)); add(a);
  }
  // long-row softmax (online path) + a big-row norm
  { Case c; c.kernel = KernelId::softmax_fused; c.dtype = DType::bf16; c.rows = 3; c.cols = 65536; c.name = "softmax_fused_bf16_long"; add(c); }
  { Case c; c.kernel = KernelId::rmsnorm; c.dtype = DType::bf16; c.rows = 4; c.cols = 16384; c.name = "rmsnorm_bf16_wide"; add(c); }
  for (DType dt : {DType::bf16, DType::fp16, DType::fp32, DType::tf32, DType::fp8}) {
    Case c; c.kernel = KernelId::gemm; c.dtype = dt; c.m = 64; c.n = 96; c.k = 256; c.name = "gemm_" + std::string(to_string(dt)) + "_64x96x256"; add(c);
    Case d = c; d.m = 1; d.n = 512; d.k = 1024; d.name = "gemm_" + std::string(to_string(dt)) + "_1x512x1024"; if (dt != DType::fp8) add(d);
  }
  { Case c; c.kernel = KernelId::gemm; c.dtype = DType::bf16; c.m = 4096; c.n = 4096; c.k = 4096; c.name = "gemm_bf16_4096_sampled"; add(c); }
  for (DType dt : {DType::bf16, DType::fp16}) {
    for (int64_t d : {64, 128})
      for (auto [h, kv] : std::vector<std::pair<int, int>>{{8, 8}, {8, 4}, {16, 4}, {16, 2}}) {
        Case c; c.kernel = KernelId::attention_decode; c.dtype = dt; c.batch = 2; c.heads = h; c.kv_heads = kv; c.head_dim = d;
        c.q_len = 1; c.kv_len = 333;
        c.name = "decode_" + std::string(to_string(dt)) + "_h" + std::to_string(h) + "_kv" + std::to_string(kv) + "_d" + std::to_string(d);
        add(c);
      }
    { Case c; c.kernel = KernelId::attention_decode; c.dtype = dt; c.batch = 16; c.heads = 32; c.kv_heads = 32; c.head_dim = 128; c.q_len = 1;
      c.kv_len = 200; c.name = "decode_" + std::string(to_string(dt)) + "_nosplit"; add(c); }
    for (KernelId k : {KernelId::attention_prefill_fused, KernelId::attention_prefill_unfused})
      for (bool causal : {true, false})
        for (int64_t d : {64, 128}) {
          Case c; c.kernel = k; c.dtype = dt; c.batch = 2; c.heads = 8; c.kv_heads = 2; c.head_dim = d; c.q_len = 136; c.kv_len = 200;
          c.causal = causal;
          c.name = to_string(k) + "_" + std::string(to_string(dt)) + (causal ? "_causal" : "") + "_d" + std::to_string(d);
          add(c);
        }
  }
  { Case c; c.kernel = KernelId::attention_prefill_fused; c.dtype = DType::bf16; c.batch = 1; c.heads = 32; c.kv_heads = 8; c.head_dim = 128;
    c.q_len = 2048; c.kv_len = 2048; c.causal = true; c.name = "prefill_fused_bf16_2048_sampled"; add(c); }
  { Case c; c.kernel = KernelId::attention_decode; c.dtype = DType::bf16; c.batch = 8; c.heads = 32; c.kv_heads = 8; c.head_dim = 128;
    c.q_len = 1; c.kv_len = 4096; c.name = "decode_bf16_b8_4096_sampled"; add(c); }
  return v;
}

int cmd_selftest(const char* out) {
  std::string why;
  if (!device_available(&why)) { std::cerr << "SKIPPED: " << why << "\n"; return 0; }
  DeviceInfo d = device_info();
  std::cerr << "device: " << device_info_json(d) << "\n";
  int fails = 0;
  std::string json = "{\"device\":" + device_info_json(d) + ",\"spin\":[";
  // harness self-test: spin kernels of known duration
  Options so;
  so.check = false;
  so.max_seconds_per_case = 1.0;
  std::vector<std::string> table;
  for (double sec : {10e-6, 50e-6, 500e-6, 2e-3}) {
    Case c; c.kernel = KernelId::other; c.spin_seconds = sec; c.name = "spin_" + std::to_string(static_cast<int>(sec * 1e6)) + "us";
    Result r = run_case(c, so);
    const double err = r.median_s / sec - 1;
    const double cerr = r.cold_median_s / sec - 1;
    const bool pass = r.ok && std::fabs(err) <= 0.03;
    if (!pass && sec >= 50e-6) ++fails;
    char b[256];
    std::snprintf(b, sizeof b, "%-14s hot %9.3f us (%+.2f%%) cold %9.3f us (%+.2f%%) %s", c.name.c_str(), r.median_s * 1e6, err * 100,
                  r.cold_median_s * 1e6, cerr * 100, sec >= 50e-6 ? (pass ? "PASS" : "FAIL") : "(info)");
    table.push_back(b);
    std::cerr << b << "\n";
    json += (sec == 10e-6 ? "" : ",") + result_json(c, r);
  }
  json += "],\"cases\":[";
  Options o;
  o.max_seconds_per_case = 0.05;
  o.min_samples = 3;
  o.cold = false;
  int n = 0, ok = 0;
  for (const Case& c : selftest_cases()) {
    Result r = run_case(c, o);
    print_row(c, r);
    ++n;
    if (r.ok && r.correct) ++ok; else ++fails;
    json += (n > 1 ? ",\n" : "\n") + result_json(c, r);
  }
  json += "]";
  // poison detection
  Result b1 = testing::run_broken_copy_check(37, 520);
  Result b2 = testing::run_wrong_value_check(37, 520);
  const bool poison_ok = !b1.ok && !b1.correct && b1.error.find("not finite") != std::string::npos;
  const bool wrong_ok = !b2.ok && !b2.correct && b2.error.find("relative error") != std::string::npos;
  if (!poison_ok) ++fails;
  if (!wrong_ok) ++fails;
  std::cerr << "broken copy (skips last element): " << (poison_ok ? "DETECTED" : "NOT DETECTED") << " :: " << b1.error << "\n";
  std::cerr << "wrong value copy: " << (wrong_ok ? "DETECTED" : "NOT DETECTED") << " :: " << b2.error << "\n";
  // run_sequence: a small decoder-layer-like step
  std::vector<Case> seq;
  {
    Case a; a.kernel = KernelId::rmsnorm; a.dtype = DType::bf16; a.rows = 8; a.cols = 4096; a.name = "seq_rmsnorm"; seq.push_back(a);
    Case g; g.kernel = KernelId::gemm; g.dtype = DType::bf16; g.m = 8; g.n = 6144; g.k = 4096; g.name = "seq_qkv"; seq.push_back(g);
    Case r; r.kernel = KernelId::rotary; r.dtype = DType::bf16; r.batch = 8; r.q_len = 1; r.kv_len = 1024; r.heads = 32; r.kv_heads = 8; r.head_dim = 128; r.name = "seq_rotary"; seq.push_back(r);
    Case at; at.kernel = KernelId::attention_decode; at.dtype = DType::bf16; at.batch = 8; at.heads = 32; at.kv_heads = 8; at.head_dim = 128; at.q_len = 1; at.kv_len = 1024; at.name = "seq_attn"; seq.push_back(at);
    Case o2 = g; o2.n = 4096; o2.name = "seq_o"; seq.push_back(o2);
  }
  Options qo;
  qo.max_seconds_per_case = 0.5;
  Result sr = run_sequence(seq, qo);
  double sum = 0;
  for (const Case& c : seq) { Result r = run_case(c, qo); sum += r.median_s; }
  const bool seq_ok = sr.ok && sr.correct && sr.median_s > 0;
  if (!seq_ok) ++fails;
  std::cerr << "run_sequence (5 cases): " << (seq_ok ? "ok" : "FAILED " + sr.error) << " step " << sr.median_s * 1e6
            << " us vs sum of separate cases " << sum * 1e6 << " us\n";
  json += ",\"broken_copy\":" + result_json(Case{"broken_copy_skip_last"}, b1) + ",\"wrong_value\":" + result_json(Case{"broken_copy_wrong_value"}, b2) +
          ",\"sequence\":" + result_json(Case{"sequence_decoder_step"}, sr) + ",\"sequence_sum_of_cases_s\":" + std::to_string(sum) + "}";
  if (out) std::ofstream(out) << json << "\n";
  std::printf("SELFTEST: %d/%d kernel cases correct; poison %s; wrong-value %s; sequence %s; failures %d\n", ok, n,
              poison_ok ? "detected" : "MISSED", wrong_ok ? "detected" : "MISSED", seq_ok ? "ok" : "FAILED", fails);
  for (auto& t : table) std::printf("  %s\n", t.c_str());
  return fails ? 1 : 0;
}

int cmd_suite(int argc, char** argv) {
  if (argc < 3) { std::cerr << "suite OUT.json\n"; return 2; }
  const char* out = argv[2];
  Options o;
  std::string filter, prefix, sha = "uncommitted";
  double budget = 1e9;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--prefix" && i + 1 < argc) prefix = argv[++i];
    else if (a == "--max-seconds" && i + 1 < argc) o.max_seconds_per_case = std::stod(argv[++i]);
    else if (a == "--budget" && i + 1 < argc) budget = std::stod(argv[++i]);
    else if (a == "--no-cold") o.cold = false;
    else if (a == "--git-sha" && i + 1 < argc) sha = argv[++i];
  }
  std::string why;
  if (!device_available(&why)) { std::cerr << "SKIPPED: " << why << "\n"; return 0; }
  DeviceInfo d = device_info();
  auto t0 = std::chrono::steady_clock::now();
  std::ofstream f(out);
  f << "{\"schema_version\":1,\"meta\":{\"device\":" << device_info_json(d) << ",\"date\":\"" << now_iso() << "\",\"git_sha\":\"" << sha
    << "\",\"harness\":\"perfmodel validation (CUDA graphs of L launches over rotating buffer sets > 2x L2, cudaEvent per replay, median of >= "
    << o.min_samples << " samples, stop at (q3-q1)/median <= " << o.target_rel_spread * 100 << "% or " << o.max_seconds_per_case
    << " s; cold = single launch after a 2xL2 flush, median of 5-7)\"},\"cases\":[";
  int n = 0, ok = 0, correct = 0, conv = 0, skipped = 0;
  for (const Case& c : kernel_suite()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    if (!prefix.empty() && c.name.rfind(prefix, 0) != 0) continue;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (el > budget) { ++skipped; continue; }
    Result r = run_case(c, o);
    print_row(c, r);
    f << (n ? ",\n" : "\n") << result_json(c, r);
    f.flush();
    ++n;
    ok += r.ok;
    correct += r.correct;
    conv += r.converged;
  }
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  f << "\n],\"summary\":{\"cases\":" << n << ",\"ok\":" << ok << ",\"correct\":" << correct << ",\"converged\":" << conv
    << ",\"skipped_for_budget\":" << skipped << ",\"wall_s\":" << el << "}}\n";
  std::printf("SUITE: %d cases, %d ok, %d correct, %d converged, %d skipped (budget), %.1f s\n", n, ok, correct, conv, skipped, el);
  return 0;
}

int cmd_calibrate(int argc, char** argv) {
  if (argc < 3) { std::cerr << "calibrate OUT.json\n"; return 2; }
  std::string why;
  if (!device_available(&why)) { std::cerr << "SKIPPED: " << why << "\n"; return 0; }
  auto t0 = std::chrono::steady_clock::now();
  Options o;
  CalibrationData d = collect_calibration(o, [](const std::string& s) { std::cerr << "calibrate: " << s << "\n"; });
  std::ofstream(argv[2]) << calibration_json(d) << "\n";
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("CALIBRATION: %zu points in %.1f s; min kernel %.3f us; host launch %.3f us\n", d.points.size(), el, d.min_kernel_time_s * 1e6,
              d.host_launch_overhead_s * 1e6);
  double copy = 0, l2 = 0;
  for (auto& p : d.points) {
    if (p.what == "copy_large") copy = std::max(copy, p.bytes / p.seconds / 1e9);
    if (p.what == "l2_copy") l2 = std::max(l2, p.bytes / p.seconds / 1e9);
    if (p.what == "gemm_peak") std::printf("  gemm_peak %-5s %8.1f TFLOP/s\n", std::string(to_string(p.dtype)).c_str(), 2.0 * p.m * p.n * p.k / p.seconds / 1e12);
  }
  std::printf("  copy %.0f GB/s, L2 copy %.0f GB/s\n", copy, l2);
  return 0;
}

int cmd_case(int argc, char** argv) {
  Case c;
  Options o;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto eq = a.find('=');
    if (eq == std::string::npos) continue;
    std::string k = a.substr(0, eq), v = a.substr(eq + 1);
    if (k == "kernel" && v == "spin") c.kernel = KernelId::other;  // with spin_seconds=S
    else if (k == "kernel") { auto x = kernel_from_string(v); if (!x) { std::cerr << "bad kernel\n"; return 2; } c.kernel = *x; }
    else if (k == "dtype") { auto x = dtype_from_string(v); if (!x) { std::cerr << "bad dtype\n"; return 2; } c.dtype = *x; }
    else if (k == "name") c.name = v;
    else if (k == "m") c.m = std::stoll(v); else if (k == "n") c.n = std::stoll(v); else if (k == "k") c.k = std::stoll(v);
    else if (k == "rows") c.rows = std::stoll(v); else if (k == "cols") c.cols = std::stoll(v); else if (k == "vocab") c.vocab = std::stoll(v);
    else if (k == "batch") c.batch = std::stoll(v); else if (k == "heads") c.heads = std::stoll(v);
    else if (k == "kv_heads") c.kv_heads = std::stoll(v); else if (k == "q_len") c.q_len = std::stoll(v);
    else if (k == "kv_len") c.kv_len = std::stoll(v); else if (k == "head_dim") c.head_dim = std::stoll(v);
    else if (k == "causal") c.causal = v == "1" || v == "true"; else if (k == "residual") c.residual = v == "1" || v == "true"; else if (k == "l2_resident") c.l2_resident = v == "1" || v == "true";
    else if (k == "spin_seconds") c.spin_seconds = std::stod(v);
    else if (k == "max_seconds") o.max_seconds_per_case = std::stod(v);
    else if (k == "cold") o.cold = v == "1" || v == "true";
  }
  if (c.name.empty()) c.name = kernel_name(c);
  std::string why;
  if (!device_available(&why)) { std::cerr << "SKIPPED: " << why << "\n"; return 0; }
  Result r = run_case(c, o);
  print_row(c, r);
  std::printf("%s\n", result_json(c, r).c_str());
  return r.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: perfmodel-gpu-driver info | selftest [OUT.json] | suite OUT.json [--filter S] [--max-seconds S] [--budget S] "
                 "[--no-cold] [--git-sha SHA] | calibrate OUT.json | case key=value...\n";
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "info") {
    std::string why;
    if (!device_available(&why)) { std::cout << "SKIPPED: " << why << "\n"; return 0; }
    std::cout << device_info_json(device_info()) << "\n";
    return 0;
  }
  if (cmd == "selftest") return cmd_selftest(argc > 2 ? argv[2] : nullptr);
  if (cmd == "suite") return cmd_suite(argc, argv);
  if (cmd == "calibrate") return cmd_calibrate(argc, argv);
  if (cmd == "case") return cmd_case(argc, argv);
  std::cerr << "unknown command " << cmd << "\n";
  return 2;
}
