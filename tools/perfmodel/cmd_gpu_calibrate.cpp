// perfmodel calibrate --on-gpu: the measurements behind a calibration file, section by section
// (docs/calibration.md); cmd_calibrate.cpp fits them.
#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "gpu_device.hpp"
#include "gpu_raw_points.hpp"
#include "perfmodel/calibration_fit.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/validation/validation.hpp"

namespace perfmodel::cli {

namespace v = perfmodel::validation;

namespace {

// Tiny launches of each small kernel, hot in L2 (one buffer set), at shapes the kernel suite does
// not hold: what they take beyond a copy of the same bytes is the thread's dependent chain
// (calibration_fit_parts.cpp, "thread_chain").
std::vector<v::Case> thread_chain_cases() {
  std::vector<v::Case> out;
  auto add = [&](KernelId k, int64_t n) {
    v::Case c;
    c.kernel = k;
    c.l2_resident = true;
    switch (k) {
      case KernelId::rotary:
        c.batch = 1, c.q_len = n, c.kv_len = n, c.heads = 32, c.kv_heads = 8, c.head_dim = 128, c.rows = n;
        break;
      case KernelId::kv_append:
        c.batch = 1, c.q_len = n, c.kv_len = n, c.heads = 32, c.kv_heads = 8, c.head_dim = 128;
        break;
      case KernelId::embedding:
        c.rows = n, c.cols = 4096, c.vocab = 32000;
        break;
      default:
        c.rows = n, c.cols = 4096;
    }
    c.name = "thread_chain_" + to_string(k) + "_" + std::to_string(n);
    out.push_back(c);
  };
  for (KernelId k : {KernelId::copy, KernelId::add, KernelId::gelu_fused, KernelId::gelu_unfused,
                      KernelId::silu_mul, KernelId::rmsnorm, KernelId::layernorm, KernelId::softmax_fused,
                      KernelId::softmax_naive, KernelId::rotary, KernelId::kv_append, KernelId::embedding})
    for (int64_t n : {3, 6}) add(k, n);
  return out;
}

}  // namespace

RawCalibration measure_calibration(Context& ctx, std::string& key, const std::string& raw_out,
                                   const std::vector<std::string>& only) {
  require_device();
  const v::DeviceInfo dev = v::device_info();
  if (key.empty()) key = card_for_device(dev);
  auto want = [&](const char* section) { return only.empty() || std::find(only.begin(), only.end(), section) != only.end(); };
  v::Options opt;
  v::CalibrationData data;
  data.device = dev;
  if (want("roofs"))
    data = v::collect_calibration(opt, [&](const std::string& msg) { *ctx.err << "calibrate: " << msg << "\n"; });
  // The flash attention kernel's throughput at a large causal prefill (its own roof).
  v::Case att;
  att.name = "attention_peak";
  att.kernel = KernelId::attention_prefill_fused;
  using A = CalibrationAttentionCase;
  att.batch = A::batch, att.heads = A::heads, att.kv_heads = A::kv_heads, att.q_len = A::seq, att.kv_len = A::seq;
  att.head_dim = A::head_dim;
  att.causal = true;
  // The points go to the fit in memory; the raw JSON is written only for --raw.
  RawCalibration raw = raw_from_backend(data);
  std::vector<RawPoint> measured;  // the points below, ahead of collect_calibration's in the raw file
  std::string extra;               // ... and as its JSON, comma-separated
  auto append = [&](RawPoint point) {
    if (!extra.empty()) extra += ',';
    extra += raw_point_json(point);
    if (point.seconds > 0) measured.push_back(std::move(point));  // as load_raw_calibration keeps them
  };
  auto point = [](const char* what, double seconds) {
    RawPoint p;
    p.what = what;
    p.dtype = "bf16";
    p.seconds = seconds;
    return p;
  };
  if (want("attention")) *ctx.err << "calibrate: flash attention throughput\n";
  const v::Result ar = want("attention") ? v::run_case(att, opt) : v::Result{};
  if (ar.ok && ar.correct && ar.median_s > 0) {
    const double flops = 4.0 * A::batch * A::heads * A::head_dim * (A::seq * (A::seq + 1.0) / 2.0);
    RawPoint p = point("attention_peak", ar.median_s);
    p.flops = flops;
    append(p);
  }
  // The same kernel at a smaller head dim and on short sequences (shapes outside the kernel
  // suite): what of a tile's time does not scale with the head dim (the softmax), and what a
  // CTA pays once (its Q tile in, its O tile out) (calibration_fit_parts.cpp, "attention_shape").
  const std::vector<std::array<int64_t, 5>> att_shapes{{4, 32, 4, 4096, 64}, {16, 32, 8, 384, 128}, {16, 32, 4, 384, 64}};
  for (const auto& [b, h, kvh, seq, d] : att_shapes) {
    if (!want("attention")) break;
    v::Case a = att;
    a.name = "attention_shape";
    a.batch = b, a.heads = h, a.kv_heads = kvh, a.q_len = seq, a.kv_len = seq, a.head_dim = d;
    const v::Result r = v::run_case(a, opt);
    if (!r.ok || !r.correct) continue;
    RawPoint p = point("attention_shape", r.median_s);
    p.batch = b, p.heads = h, p.kv_heads = kvh, p.q_len = seq, p.kv_len = seq, p.head_dim = d;
    *ctx.err << "calibrate: attention b" << b << " h" << h << "/" << kvh << " s" << seq << " d" << d << ": " << r.median_s * 1e6 << " us\n";
    append(p);
  }
  // Weight-streaming GEMMs over the reduction depth K and the output width N: what the GEMM's
  // fixed cost depends on (the M ramp of collect_calibration holds K and N at 4096).
  if (want("gemm")) *ctx.err << "calibrate: GEMM K and N ramps\n";
  const std::vector<std::array<int64_t, 3>> ramp{{1, 4096, 512},  {1, 4096, 1024}, {1, 4096, 2048},
                                                 {1, 4096, 8192}, {1, 4096, 16384}, {16, 4096, 8192},
                                                 {1, 1024, 4096}, {1, 16384, 4096}, {1, 65536, 4096},
                                                 {64, 96, 256},   {1, 512, 1024}};
  for (const auto& [m, n, k] : ramp) {
    if (!want("gemm")) break;
    v::Case g;
    g.name = "gemm_k_ramp";
    g.kernel = KernelId::gemm;
    g.m = m, g.n = n, g.k = k;
    v::Result gr = v::run_case(g, opt);
    if (!gr.ok || !gr.correct) continue;
    RawPoint p = point("gemm_k_ramp", gr.median_s);
    p.m = m, p.n = n, p.k = k;
    append(p);
  }
  // Flash-decoding at shapes the kernel suite does not hold (the suite stays a held-out test):
  // both kernel paths (GQA groups of 2 and of 8), several context lengths.
  if (want("decode")) *ctx.err << "calibrate: decode attention ramp\n";
  // The last five hold many key tiles per CTA (few splits), so the fit can tell a CTA's fixed
  // cost from its per-tile cost.
  const std::vector<std::array<int64_t, 5>> dec{{1, 32, 16, 512, 128},  {1, 32, 16, 2048, 128}, {1, 32, 16, 6144, 128},
                                                {1, 64, 8, 512, 128},   {1, 64, 8, 2048, 128},  {1, 64, 8, 6144, 128},
                                                {4, 32, 4, 3072, 128},  {2, 16, 2, 1536, 128},  {16, 32, 16, 1536, 128},
                                                {16, 32, 8, 3000, 128}, {64, 32, 4, 1500, 128}, {48, 32, 4, 700, 64},
                                                {24, 64, 8, 2500, 128}, {96, 32, 4, 384, 128}};
  for (const auto& [b, h, kvh, len, d] : dec) {
    if (!want("decode")) break;
    v::Case a;
    a.name = "decode_ramp";
    a.kernel = KernelId::attention_decode;
    a.batch = b, a.heads = h, a.kv_heads = kvh, a.q_len = 1, a.kv_len = len, a.head_dim = d;
    v::Result r = v::run_case(a, opt);
    if (!r.ok || !r.correct) continue;
    RawPoint p = point("decode_ramp", r.median_s);
    p.batch = b, p.heads = h, p.kv_heads = kvh, p.kv_len = len, p.head_dim = d;
    append(p);
  }
  // Issue-bound kernels: fused softmaxes over rows the suite does not hold; their instructions
  // are counted (perfmodel/instructions.hpp), so the time gives the share of issue slots used.
  if (want("issue")) *ctx.err << "calibrate: issue rate (fused softmax)\n";
  for (const auto& [rows, cols] : std::vector<std::array<int64_t, 2>>{{8192, 8192}, {32768, 2048}, {16384, 3072}}) {
    if (!want("issue")) break;
    v::Case s;
    s.name = "issue_softmax";
    s.kernel = KernelId::softmax_fused;
    s.rows = rows, s.cols = cols;
    v::Result r = v::run_case(s, opt);
    if (!r.ok || !r.correct) continue;
    RawPoint p = point("issue_softmax", r.median_s);
    p.m = rows, p.n = cols;
    append(p);
  }
  // Small kernels as single launches: what each takes and the bytes the harness cycled through.
  auto kernel_point = [&](const char* what, const v::Case& c) {
    const v::Result r = v::run_case(c, opt);
    if (!r.ok || !r.correct) return;
    RawPoint p = point(what, r.median_s);
    p.kernel = raw_kernel_case(what, c, r.rotated_bytes);
    *ctx.err << "calibrate: " << c.name << ": " << r.median_s * 1e6 << " us, " << r.rotated_bytes / 1e6 << " MB cycled\n";
    append(p);
  };
  if (want("chains")) *ctx.err << "calibrate: thread chains of small kernels\n";
  for (const v::Case& c : want("chains") ? thread_chain_cases() : std::vector<v::Case>{}) kernel_point("thread_chain", c);
  // L2 residency: copies whose rotating buffer sets (1000 launches, one set each) total 25 to
  // 115 MB, around the L2's size (calibration_fit_parts.cpp, "l2_residency").
  if (want("l2")) *ctx.err << "calibrate: L2 residency of cycled working sets\n";
  for (int64_t rows : {3, 5, 7, 9, 11, 14}) {
    if (!want("l2")) break;
    v::Case c;
    c.kernel = KernelId::copy;
    c.rows = rows, c.cols = 2048;
    c.name = "l2_residency_copy_" + std::to_string(rows) + "x2048";
    kernel_point("l2_residency", c);
  }
  // Kernel switches: six different small kernels, hot in L2, back to back in one graph against
  // each one repeated alone. What the mixed graph takes beyond the sum is what a step pays per
  // kernel for following a different one (calibration_fit.cpp, "kernel_switch").
  if (want("switch")) {
    *ctx.err << "calibrate: switching between kernels\n";
    std::vector<v::Case> mix;
    auto add_case = [&](KernelId k, int64_t rows, int64_t cols) {
      v::Case c;
      c.kernel = k;
      c.rows = rows, c.cols = cols;
      c.l2_resident = true;
      if (k == KernelId::gemm) c.m = rows, c.n = cols, c.k = cols, c.rows = c.cols = 0;
      c.name = "switch_" + to_string(k);
      mix.push_back(c);
    };
    add_case(KernelId::copy, 16, 2048);
    add_case(KernelId::rmsnorm, 16, 2048);
    add_case(KernelId::gemm, 16, 512);  // 0.5 MB of weights: twenty copies stay in L2 too
    add_case(KernelId::silu_mul, 16, 2048);
    add_case(KernelId::add, 16, 2048);
    add_case(KernelId::softmax_fused, 16, 2048);
    double alone = 0;
    bool ok = true;
    for (const v::Case& c : mix) {
      const v::Result r = v::run_case(c, opt);
      ok = ok && r.ok && r.correct;
      alone += r.median_s;
    }
    const int reps = 20;
    std::vector<v::Case> seq;
    for (int i = 0; i < reps; ++i) seq.insert(seq.end(), mix.begin(), mix.end());
    v::Options so = opt;
    so.check = false;
    so.cold = false;
    const v::Result r = v::run_sequence(seq, so);
    if (ok && r.ok) {
      const double mixed = r.median_s / reps;  // one pass over the six
      RawPoint p = point("kernel_switch", mixed);
      p.dtype.clear();  // the point mixes kernels
      p.kernels = static_cast<int>(mix.size());
      p.alone_s = alone;
      *ctx.err << "calibrate: six kernels mixed " << mixed * 1e6 << " us, alone " << alone * 1e6 << " us\n";
      append(p);
    }
  }
  // Sustained loads and the board's power cap: a large GEMM, the flash prefill kernel and a large
  // copy, each timed in a short burst after a rest, then back to back for seconds in one graph,
  // with the SM clock and the board power read after every replay (calibration_fit_parts.cpp,
  // "sustained_*").
  auto sustained = [&](const char* what, const v::Case& c, int per_graph) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    const v::PowerInfo idle = v::power_info();
    const v::Result burst = v::run_case(c, opt);
    v::Options so = opt;
    so.check = false;
    so.cold = false;
    so.min_samples = 60;
    so.target_rel_spread = 0;  // run the whole budget: the clock settles after ~0.5 s
    so.max_seconds_per_case = 4;
    const v::Result sus = v::run_sequence(std::vector<v::Case>(per_graph, c), so);
    if (!burst.ok || !burst.correct || !sus.ok) return;
    RawPoint p = point(what, sus.median_s / per_graph);
    p.m = c.m, p.n = c.n, p.k = c.k;
    p.burst_seconds = burst.median_s, p.clock_mhz = sus.sm_clock_mhz_median, p.burst_clock_mhz = burst.sm_clock_mhz_median;
    p.power_w = sus.power_w_median, p.idle_power_w = idle.draw_w, p.power_limit_w = idle.limit_w;
    *ctx.err << "calibrate: " << what << " " << sus.median_s / per_graph * 1e6 << " us at " << sus.sm_clock_mhz_median
             << " MHz, " << sus.power_w_median << " W (burst " << burst.median_s * 1e6 << " us at "
             << burst.sm_clock_mhz_median << " MHz; idle " << idle.draw_w << " W, cap " << idle.limit_w << " W)\n";
    append(p);
  };
  if (want("power")) {
    *ctx.err << "calibrate: sustained loads (power cap)\n";
    v::Case g;
    g.name = "power_gemm";
    g.kernel = KernelId::gemm;
    g.m = g.n = g.k = 8192;
    sustained("sustained_gemm", g, 24);
    sustained("sustained_attention", att, 8);
    v::Case copy;
    copy.name = "power_copy";
    copy.kernel = KernelId::copy;
    copy.rows = 131072, copy.cols = 4096;  // 1 GiB each way
    sustained("sustained_copy", copy, 16);
  }
  raw.points.insert(raw.points.begin(), measured.begin(), measured.end());
  if (raw_out.empty()) return raw;
  std::string json = v::calibration_json(data);
  const std::string key_text = "\"points\":[";
  const size_t at = json.find(key_text);
  if (at != std::string::npos && !extra.empty()) {
    const size_t pos = at + key_text.size();
    const size_t next = json.find_first_not_of(" \n", pos);
    const bool empty = next != std::string::npos && json[next] == ']';
    json.insert(pos, extra + (empty ? "" : ","));
  }
  write_text_file(raw_out, json);
  return raw;
}

}  // namespace perfmodel::cli
