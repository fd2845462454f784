// What the CLI's labels and headers say matches what was priced (issue 14, "smaller defects"):
// the dtypes in the step header, TTFT for the batch and per request, sweep-batch's two bound
// columns against b*, and gemm's fp16-accumulate peak.
#include <doctest/doctest.h>

#include "cli_support.hpp"

using namespace cli_test;

namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

double num(const test::Json& j, const std::string& path) {
  const test::Json* v = j.at(path);
  REQUIRE_MESSAGE(v != nullptr, "missing " << path);
  REQUIRE(v->type == test::Json::Type::number);
  return v->num;
}

std::string str(const test::Json& j, const std::string& path) {
  const test::Json* v = j.at(path);
  REQUIRE_MESSAGE(v != nullptr, "missing " << path);
  return v->str;
}

}  // namespace

TEST_CASE("the step header names the weight, activation and KV dtypes priced") {
  for (const char* cmd : {"decode", "prefill", "ops", "sweep-batch --max-batch 2"}) {
    CAPTURE(cmd);
    const Run fp8 = cli(std::string(cmd) + " --model llama3-8b --card h200 --ctx 512 --weight-dtype fp8");
    SHOW(fp8);
    REQUIRE(fp8.rc == 0);
    const std::string h = first_line(fp8.out);
    CHECK(test::contains(h, "weights fp8"));
    CHECK(test::contains(h, "activations bf16"));
    CHECK(test::contains(h, "KV bf16"));
    const Run kv = cli(std::string(cmd) + " --model llama3-8b --card h200 --ctx 512 --weight-dtype int4 --kv-dtype fp8");
    REQUIRE(kv.rc == 0);
    CHECK(test::contains(first_line(kv.out), "weights int4 g128"));
    CHECK(test::contains(first_line(kv.out), "KV fp8"));
    const Run plain = cli(std::string(cmd) + " --model llama3-8b --card h200 --ctx 512");
    REQUIRE(plain.rc == 0);
    CHECK(test::contains(first_line(plain.out), ", bf16, fused"));
  }
}

TEST_CASE("roofline: the roof drawn is the one the linears run at (fp8 weights: fp8's peak)") {
  const Run r = cli("roofline --model llama3-8b --card h200 --weight-dtype fp8");
  SHOW(r);
  REQUIRE(r.rc == 0);
  CHECK(first_line(r.out) == "roofline of NVIDIA H200 SXM 141GB (fp8)");
  const test::Json fp8 = json_of(cli("roofline --model llama3-8b --card h200 --weight-dtype fp8 --format json"));
  const test::Json bf16 = json_of(cli("roofline --model llama3-8b --card h200 --format json"));
  // H200 datasheet: fp8 1979 TFLOP/s, bf16 989.4; the step's ridge is fp8's too.
  CHECK(num(fp8, "roofs.nominal_peak") == test::approx(2 * num(bf16, "roofs.nominal_peak")).epsilon(0.01));
  const test::Json d = json_of(cli("decode --model llama3-8b --card h200 --weight-dtype fp8 --format json"));
  CHECK(num(fp8, "roofs.nominal_ridge") == test::approx(num(d, "analysis.ridge")).epsilon(1e-9));
}

TEST_CASE("TTFT: the whole batch's prefill, and one request's at batch 1 as its own key") {
  const test::Json d8 = json_of(cli("decode --model llama2-7b --card a100 --batch 8 --ctx 1024 --format json"));
  const test::Json p8 = json_of(cli("prefill --model llama2-7b --card a100 --batch 8 --ctx 1024 --format json"));
  const test::Json p1 = json_of(cli("prefill --model llama2-7b --card a100 --batch 1 --ctx 1024 --format json"));
  // ttft_s (kept) is the prefill of all 8 prompts; ttft_per_request_s is the batch-1 prefill.
  CHECK(num(d8, "analysis.ttft_s") == test::approx(num(p8, "step.time_s")).epsilon(1e-9));
  CHECK(num(d8, "analysis.ttft_per_request_s") == test::approx(num(p1, "step.time_s")).epsilon(1e-9));
  CHECK(num(d8, "analysis.ttft_per_request_s") < num(d8, "analysis.ttft_s") / 4);  // 8 prompts take longer
  CHECK(num(p8, "analysis.ttft_per_request_s") == test::approx(num(p1, "step.time_s")).epsilon(1e-9));
  CHECK(num(p1, "analysis.ttft_per_request_s") == num(p1, "analysis.ttft_s"));
  const Run t = cli("decode --model llama2-7b --card a100 --batch 8 --ctx 1024");
  SHOW(t);
  CHECK(test::contains(t.out, "TTFT, whole batch (prefill of 8 x 1024 tokens)"));
  CHECK(test::contains(t.out, "TTFT per request (one prompt of 1024 tokens, batch 1)"));
  // Under tensor and data parallelism one request runs on one replica.
  const test::Json tp = json_of(cli("decode --model llama2-7b --card h200 --batch 8 --ctx 1024 --tp 2 --dp 2 --format json"));
  CHECK(num(tp, "analysis.ttft_per_request_s") > 0);
  CHECK(num(tp, "analysis.ttft_per_request_s") < num(tp, "analysis.ttft_s"));
}

TEST_CASE("sweep-batch: AI(b) vs ridge agrees with b*; the most-time bound is labelled apart") {
  // Llama-3-8B on the H200 at ctx 512: b* is about 1490, while the per-op bounds put most of the
  // time in compute-bound GEMMs from batch 256 on (the "bound" column read "compute" far below
  // b*, which a reader took for a contradiction).
  const test::Json j = json_of(cli("sweep-batch --model llama3-8b --card h200 --ctx 512 --batches 1,16,64,128,256,512 --format json"));
  REQUIRE(j.at("summary.b_star")->type == test::Json::Type::number);
  const double b_star = num(j, "summary.b_star");
  int disagreements = 0;
  for (const test::Json& row : j.at("rows")->arr) {
    const double b = num(row, "batch");
    CAPTURE(b);
    CHECK(str(row, "ridge_side") == (b >= b_star ? "compute" : "memory"));
    CHECK((str(row, "ridge_side") == "compute") == (num(row, "ai") >= num(j, "summary.ridge")));
    disagreements += str(row, "bound") != str(row, "ridge_side");
  }
  CHECK(disagreements > 0);  // the case where the two columns differ is in the sweep
  const Run t = cli("sweep-batch --model llama3-8b --card h200 --ctx 512 --batches 1,16,64,128,256,512");
  SHOW(t);
  CHECK(test::contains(t.out, "AI(b) vs ridge"));
  CHECK(test::contains(t.out, "most time (per-op bounds)"));
  CHECK(test::contains(t.out, "b* (AI(b) reaches the nominal ridge)"));
}

TEST_CASE("gemm --accumulate fp16 prices at the card's fp16_acc16 peak") {
  const std::string big = " --m 8192 --n 8192 --k 8192 --dtype fp16 --format json";
  const test::Json g32 = json_of(cli("gemm --card 4090" + big));
  const test::Json g16 = json_of(cli("gemm --card 4090" + big + " --accumulate fp16"));
  CHECK(str(g32, "inputs.precision") == "fp16");
  CHECK(str(g16, "inputs.precision") == "fp16_acc16");
  // GeForce: 330.3 vs 165.2 TFLOP/s; a compute-bound GEMM runs about twice as fast.
  CHECK(num(g32, "time_s") / num(g16, "time_s") == test::approx(2.0).epsilon(0.1));
  CHECK(num(g32, "roofline_time_s") / num(g16, "roofline_time_s") == test::approx(330.3 / 165.2).epsilon(0.01));
  // Datacenter parts: the same rate; on the calibrated H200 the measured fp16 roof carries over.
  for (const char* card : {"h100", "h200"}) {
    CAPTURE(card);
    const test::Json a = json_of(cli(std::string("gemm --card ") + card + big));
    const test::Json b = json_of(cli(std::string("gemm --card ") + card + big + " --accumulate fp16"));
    CHECK(num(a, "time_s") == test::approx(num(b, "time_s")).epsilon(1e-9));
  }
  const Run t = cli("gemm --card 4090 --m 64 --n 64 --k 64 --dtype fp16 --accumulate fp16");
  SHOW(t);
  CHECK(test::contains(first_line(t.out), "fp16 (fp16 accumulate)"));
  expect_input_error(cli("gemm --card 4090 --m 64 --n 64 --k 64 --accumulate fp16"), {"--accumulate fp16 needs --dtype fp16"});
  expect_input_error(cli("gemm --card 4090 --m 64 --n 64 --k 64 --dtype fp16 --accumulate int8"), {"--accumulate must be fp32 or fp16"});
  expect_input_error(cli("gemm --card 4090 --m 64 --n 64 --k 64 --dtype fp16 --accumulate fp16 --weight-dtype int4"),
                     {"--accumulate fp16"});
}

TEST_CASE("gemm --impl eager shows the kernel's time beside the host's, as op does") {
  const std::string shape = "gemm --card h200 --m 28 --n 1536 --k 576";
  const Run eager = cli(shape + " --impl eager");
  SHOW(eager);
  REQUIRE(eager.rc == 0);
  CHECK(test::contains(eager.out, "device (kernel) time"));
  CHECK(test::contains(eager.out, "host (dispatch) time"));
  const test::Json j = json_of(cli(shape + " --impl eager --format json"));
  // A small eager linear: PyTorch's dispatch outlasts the kernel, so the wall alone would hide the kernel's time.
  CHECK(num(j, "host_time_s") > num(j, "device_time_s"));
  CHECK(num(j, "device_time_s") > 0);
  const Run fused = cli(shape + " --impl fused");
  REQUIRE(fused.rc == 0);
  CHECK_FALSE(test::contains(fused.out, "host (dispatch) time"));
}

TEST_CASE("sweep-batch --impl eager shows each batch's kernel time beside the host's") {
  const std::string sweep = "sweep-batch --model llama2-7b --card h200 --ctx 512 --impl eager --max-batch 64";
  const Run t = cli(sweep);
  SHOW(t);
  REQUIRE(t.rc == 0);
  CHECK(test::contains(t.out, "device"));
  CHECK(test::contains(t.out, "host"));
  const test::Json j = json_of(cli(sweep + " --format json"));
  const test::Json* rows = j.at("rows");
  REQUIRE(rows != nullptr);
  REQUIRE(rows->arr.size() >= 2);
  const test::Json& first = rows->arr.front();
  const test::Json& last = rows->arr.back();
  // The kernels grow with the batch (KV reads, wider GEMMs); eager's dispatch is the same calls at any batch.
  CHECK(num(last, "device_time_s") > num(first, "device_time_s"));
  CHECK(num(last, "host_time_s") == test::approx(num(first, "host_time_s")).epsilon(1e-9));
  for (const test::Json& r : rows->arr) CHECK(num(r, "time_s") >= num(r, "device_time_s"));
  const Run fused = cli("sweep-batch --model llama2-7b --card h200 --ctx 512 --max-batch 4");
  REQUIRE(fused.rc == 0);
  CHECK_FALSE(test::contains(fused.out, "  host  "));
}

TEST_CASE("decode --impl eager: the ops table shows each op's kernel time beside its wall") {
  const Run t = cli("decode --model llama2-7b --card h200 --ctx 512 --impl eager");
  SHOW(t);
  REQUIRE(t.rc == 0);
  const size_t header = t.out.find("\nop ");
  REQUIRE(header != std::string::npos);
  const std::string line = t.out.substr(header + 1, t.out.find('\n', header + 1) - header - 1);
  CHECK(test::contains(line, " time "));
  CHECK(test::contains(line, " device "));
  const Run fused = cli("decode --model llama2-7b --card h200 --ctx 512");
  REQUIRE(fused.rc == 0);
  const size_t h2 = fused.out.find("\nop ");
  REQUIRE(h2 != std::string::npos);
  CHECK_FALSE(test::contains(fused.out.substr(h2 + 1, fused.out.find('\n', h2 + 1) - h2 - 1), " device "));
}
