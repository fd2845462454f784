// Plain C++ part of the validation API: names, JSON, the kernel suite.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "perfmodel/validation/validation.hpp"

namespace perfmodel::validation {

namespace {
std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o;
}
std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

struct Obj {
  std::ostringstream os;
  bool first = true;
  Obj() { os << "{"; }
  Obj& key(const char* k) {
    os << (first ? "" : ",") << "\"" << k << "\":";
    first = false;
    return *this;
  }
  Obj& s(const char* k, const std::string& v) { key(k); os << "\"" << esc(v) << "\""; return *this; }
  Obj& d(const char* k, double v) { key(k); os << num(v); return *this; }
  Obj& i(const char* k, int64_t v) { key(k); os << v; return *this; }
  Obj& b(const char* k, bool v) { key(k); os << (v ? "true" : "false"); return *this; }
  Obj& raw(const char* k, const std::string& v) { key(k); os << v; return *this; }
  std::string str() { return os.str() + "}"; }
};
}  // namespace

std::string kernel_name(const Case& c) { return is_spin(c) ? "spin" : to_string(c.kernel); }

std::string device_info_json(const DeviceInfo& d) {
  Obj o;
  o.s("name", d.name).i("sm_count", d.sm_count).i("l2_bytes", d.l2_bytes).i("memory_bytes", d.memory_bytes)
      .i("cc_major", d.cc_major).i("cc_minor", d.cc_minor).i("sm_clock_max_mhz", d.sm_clock_max_mhz)
      .i("mem_clock_mhz", d.mem_clock_mhz).i("mem_bus_width_bits", d.mem_bus_width_bits)
      .s("driver_version", d.driver_version).s("runtime_version", d.runtime_version).s("cublas_version", d.cublas_version);
  return o.str();
}

std::string result_json(const Case& c, const Result& r) {
  Obj o;
  o.s("name", c.name).s("kernel", kernel_name(c)).s("dtype", std::string(to_string(c.dtype)))
      .i("m", c.m).i("n", c.n).i("k", c.k).i("rows", c.rows).i("cols", c.cols).i("vocab", c.vocab)
      .i("batch", c.batch).i("heads", c.heads).i("kv_heads", c.kv_heads).i("q_len", c.q_len).i("kv_len", c.kv_len)
      .i("head_dim", c.head_dim).b("causal", c.causal).b("residual", c.residual).b("l2_resident", c.l2_resident).d("spin_seconds", c.spin_seconds)
      .b("ok", r.ok).s("error", r.error).b("correct", r.correct).d("max_rel_error", r.max_rel_error)
      .d("measured_s", r.median_s).d("median_s", r.median_s).d("q1_s", r.q1_s).d("q3_s", r.q3_s)
      .i("samples", r.samples).b("converged", r.converged).s("stop_reason", r.stop_reason).d("cold_median_s", r.cold_median_s)
      .d("sm_clock_mhz_min", r.sm_clock_mhz_min).d("sm_clock_mhz_max", r.sm_clock_mhz_max).d("sm_clock_mhz_median", r.sm_clock_mhz_median).d("power_w_median", r.power_w_median).i("throttled_samples", r.throttled_samples)
      .i("launches_per_sample", r.launches_per_sample).i("buffer_sets", r.buffer_sets).d("rotated_bytes", r.rotated_bytes)
      .i("kernels_per_launch", r.kernels_per_launch).d("flops", r.flops).d("bytes", r.bytes);
  return o.str();
}

std::string calibration_json(const CalibrationData& d) {
  std::ostringstream os;
  os << "{\"schema_version\":1,\"device\":" << device_info_json(d.device) << ",\"host_launch_overhead_s\":" << num(d.host_launch_overhead_s)
     << ",\"min_kernel_time_s\":" << num(d.min_kernel_time_s) << ",\"points\":[";
  for (size_t i = 0; i < d.points.size(); ++i) {
    const auto& p = d.points[i];
    Obj o;
    o.s("what", p.what).s("dtype", std::string(to_string(p.dtype))).i("m", p.m).i("n", p.n).i("k", p.k).i("bytes", p.bytes).d("seconds", p.seconds);
    os << (i ? ",\n" : "\n") << o.str();
  }
  os << "\n]}";
  return os.str();
}

// ------------------------------------------------------------------ suite
std::vector<Case> kernel_suite() {
  std::vector<Case> v;
  auto gemm = [&](DType dt, int64_t m, int64_t n, int64_t k, const std::string& tag) {
    Case c;
    c.kernel = KernelId::gemm;
    c.dtype = dt;
    c.m = m; c.n = n; c.k = k;
    c.name = "gemm_" + std::string(to_string(dt)) + "_m" + std::to_string(m) + "_n" + std::to_string(n) + "_k" + std::to_string(k) + (tag.empty() ? "" : "_" + tag);
    v.push_back(c);
  };
  for (int64_t s : {1024, 2048, 3072, 4096, 6144, 8192}) gemm(DType::bf16, s, s, s, "square");
  for (int64_t s = 1536 + 32; s < 2048; s += 32) gemm(DType::bf16, s, s, s, "band");  // 1536 and 2048 already in the squares? 1536 not
  gemm(DType::bf16, 1536, 1536, 1536, "band");
  struct Lin { const char* model; const char* name; int64_t n, k; };
  const Lin lins[] = {
      {"tinyllama", "qkv", 2560, 2048}, {"tinyllama", "o", 2048, 2048}, {"tinyllama", "gate_up", 11264, 2048},
      {"tinyllama", "down", 2048, 5632}, {"tinyllama", "lm_head", 32000, 2048},
      {"llama2_7b", "qkv", 12288, 4096}, {"llama2_7b", "o", 4096, 4096}, {"llama2_7b", "gate_up", 22016, 4096},
      {"llama2_7b", "down", 4096, 11008}, {"llama2_7b", "lm_head", 32000, 4096},
      {"llama3_8b", "qkv", 6144, 4096}, {"llama3_8b", "o", 4096, 4096}, {"llama3_8b", "gate_up", 28672, 4096},
      {"llama3_8b", "down", 4096, 14336}, {"llama3_8b", "lm_head", 128256, 4096}};
  for (const auto& l : lins)
    for (int64_t m : {1, 4, 16, 64, 256, 1024, 4096, 16384}) gemm(DType::bf16, m, l.n, l.k, std::string(l.model) + "_" + l.name);
  for (int64_t s : {2048, 4096, 8192}) {
    gemm(DType::fp16, s, s, s, "square");
    gemm(DType::tf32, s, s, s, "square");
    gemm(DType::fp8, s, s, s, "square");
  }
  for (int64_t s : {1024, 2048, 4096}) gemm(DType::fp32, s, s, s, "square");

  // elementwise / norm / softmax ladder: 8 KiB .. 2 GiB of the primary bf16 tensor, width 4096
  const int64_t sizes[] = {8192, 65536, 524288, 4194304, 33554432, 268435456, 1073741824, 2147483648};
  auto human = [](int64_t b) {
    if (b >= (1 << 30)) return std::to_string(b >> 30) + "GiB";
    if (b >= (1 << 20)) return std::to_string(b >> 20) + "MiB";
    return std::to_string(b >> 10) + "KiB";
  };
  for (KernelId k : {KernelId::copy, KernelId::add, KernelId::gelu_fused, KernelId::gelu_unfused, KernelId::silu_mul, KernelId::rmsnorm,
                   KernelId::layernorm, KernelId::softmax_naive, KernelId::softmax_fused, KernelId::embedding})
    for (int64_t b : sizes) {
      Case c;
      c.kernel = k;
      c.dtype = DType::bf16;
      c.cols = 4096;
      c.rows = b / 2 / c.cols;
      if (k == KernelId::embedding) c.vocab = 32000;
      c.name = to_string(k) + "_bf16_" + std::to_string(c.rows) + "x" + std::to_string(c.cols) + "_" + human(b);
      v.push_back(c);
    }
  // rotary (q: 32 heads, k: 8 kv heads, d 128) and kv_append (8 kv heads, d 128): token ladders
  for (int64_t tok : {1, 8, 64, 512, 4096, 32768, 131072, 262144}) {
    Case c;
    c.kernel = KernelId::rotary;
    c.dtype = DType::bf16;
    c.batch = 1; c.q_len = tok; c.kv_len = tok; c.heads = 32; c.kv_heads = 8; c.head_dim = 128;
    c.rows = tok;
    c.name = "rotary_bf16_tokens" + std::to_string(tok) + "_h32_kv8_d128";
    v.push_back(c);
    Case a;
    a.kernel = KernelId::kv_append;
    a.dtype = DType::bf16;
    a.batch = 1; a.q_len = tok * 2; a.kv_len = tok * 2; a.heads = 32; a.kv_heads = 8; a.head_dim = 128;
    a.name = "kv_append_bf16_tokens" + std::to_string(tok * 2) + "_kv8_d128";
    v.push_back(a);
  }
  // decode attention
  struct Gqa { int64_t h, kv, d; const char* tag; };
  const Gqa gqas[] = {{32, 32, 128, "mha"}, {32, 8, 128, "gqa8"}, {32, 4, 128, "gqa4"}, {32, 4, 64, "tinyllama"}};
  for (const auto& g : gqas)
    for (int64_t b : {1, 8, 32, 128})
      for (int64_t ctx : {256, 1024, 4096, 8192}) {
        const double kv_bytes = 4.0 * b * g.kv * ctx * g.d;
        if (kv_bytes > 16e9) continue;
        Case c;
        c.kernel = KernelId::attention_decode;
        c.dtype = DType::bf16;
        c.batch = b; c.heads = g.h; c.kv_heads = g.kv; c.head_dim = g.d; c.q_len = 1; c.kv_len = ctx;
        c.name = "attn_decode_bf16_b" + std::to_string(b) + "_ctx" + std::to_string(ctx) + "_h" + std::to_string(g.h) + "_kv" +
                 std::to_string(g.kv) + "_d" + std::to_string(g.d);
        v.push_back(c);
      }
  // prefill attention (causal)
  for (KernelId k : {KernelId::attention_prefill_fused, KernelId::attention_prefill_unfused})
    for (int64_t b : {1, 2, 8})
      for (int64_t s : {256, 1024, 2048, 4096})
        for (int64_t kv : {8, 32}) {
          if (k == KernelId::attention_prefill_unfused && 2.0 * b * 32 * s * s > 9e9) continue;
          Case c;
          c.kernel = k;
          c.dtype = DType::bf16;
          c.batch = b; c.heads = 32; c.kv_heads = kv; c.head_dim = 128; c.q_len = s; c.kv_len = s; c.causal = true;
          c.name = std::string(k == KernelId::attention_prefill_fused ? "attn_prefill_fused" : "attn_prefill_unfused") + "_bf16_b" +
                   std::to_string(b) + "_s" + std::to_string(s) + "_h32_kv" + std::to_string(kv) + "_d128_causal";
          v.push_back(c);
        }
  return v;
}

}  // namespace perfmodel::validation
