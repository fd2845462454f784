// Branch castcopy (validation/results/h200-castcopy): the mixed read / write DRAM stream and a copy's
// L2 roof (lib/src/cost/stream_rate.hpp), opt-in through the calibration's stream_one_bus.
#include <doctest/doctest.h>

#include "../lib/src/cost/kernel_costs.hpp"
#include "../lib/src/cost/stream_rate.hpp"
#include <cmath>

#include "perfmodel/calibration.hpp"
#include "perfmodel/dtype.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

constexpr double kRead = 4658.4e9, kWrite = 3432.33e9;  // hardware/h200.calibration.yaml

Roofs h200(bool opt_in) {
  const std::string file = opt_in ? "/validation/results/h200-castcopy/castcopy.calibration.yaml"
                                  : "/hardware/h200.calibration.yaml";
  const Calibration cal = load_calibration(test::root() + file);
  return make_roofs(test::catalogue().card("h200"), &cal, Impl::compiled);
}

}  // namespace

TEST_CASE("one bus: a read-heavy stream is the old sum, a write-heavy one pays the turnaround on its reads") {
  // Copy (1:1) and add (2:1), where the calibration fitted the two rates: bit for bit the old sum.
  CHECK(mixed_stream_s(1e9, 1e9, kRead, kWrite) == 1e9 / kRead + 1e9 / kWrite);
  CHECK(mixed_stream_s(2e9, 1e9, kRead, kWrite) == 2e9 / kRead + 1e9 / kWrite);
  // Symmetric in the two directions: 1:2 runs at 2:1's rate, not below 1:1's.
  CHECK(mixed_stream_s(1e9, 2e9, kRead, kWrite) == doctest::Approx(mixed_stream_s(2e9, 1e9, kRead, kWrite)));
  CHECK(3e9 / mixed_stream_s(1e9, 2e9, kRead, kWrite) > 2e9 / mixed_stream_s(1e9, 1e9, kRead, kWrite) * 1.04);
  // Writes alone at write_bandwidth: fill_ of 1 GB 317.3 us measured (h200-castcopy/mixrate.jsonl,
  // 3.38 TB/s); priced 312.8 us. The bus's rate would have given 230.5.
  CHECK(mixed_stream_s(0, 1073741824.0, kRead, kWrite) / 317.3e-6 - 1 == doctest::Approx(-0.014).epsilon(0.02));
  CHECK(mixed_stream_s(1e9, 4e9, kRead, kWrite) == doctest::Approx(4e9 / kWrite));  // 1:4: the writes bind
  // A card whose writes are not slower: each at its own rate.
  CHECK(mixed_stream_s(1e9, 2e9, 3e12, 3e12) == doctest::Approx(1e9 / 3e12 + 2e9 / 3e12));
  CHECK(mixed_stream_s(1e9, 1e9, 0, kWrite) == 0);
}

TEST_CASE("the int8 -> bf16 weight copy at 28672 x 4096: 84.5 us measured (h200-int8-compiled), 4.17 TB/s") {
  const Op copy = ops::cast("w.weight_to_bf16", 28672, 4096, DType::int8, DType::bf16);
  const double opt_in = price(copy, h200(true), Impl::fused).time_s, def = price(copy, h200(false), Impl::fused).time_s;
  // Profiled durations 83.5-85.7 us over the five M of the call.
  CHECK(opt_in / 84.5e-6 - 1 == doctest::Approx(0.02).epsilon(0.03));  // +1.8 %
  // Since branch compdef a cast is on the one-bus law without the opt-in too (price.cpp stream_memory_s).
  CHECK(def == doctest::Approx(opt_in));
  // The reads-plus-writes sum it replaced: +12.3 %.
  const double sum = def - mixed_stream_s(copy.bytes_read, copy.bytes_written, kRead, kWrite) +
                     copy.bytes_read / kRead + copy.bytes_written / kWrite;
  CHECK(sum / 84.5e-6 - 1 > 0.10);
}

TEST_CASE("repeat_kv's copy is bound by L2: each output element loads its source through L2") {
  // h200-compiled: Llama-3-8B 4 layers b16 kv 2088, the fused repeat_kv kernel (K and V, 8 launches)
  // 707.2 us a step: 88.4 us a launch. Priced as the compiled lowering builds it.
  const Roofs on = h200(true), off = h200(false);
  Op rep = ops::copy("l.attn.repeat_kv", 16 * 2088, 2 * 4096, DType::bf16);
  rep.bytes_read /= 4;  // 8 KV heads to 32 query heads
  rep.launches = 2;
  const double measured = 2 * 88.4e-6;
  const KernelTimes t = stream_cost(rep, on, nullptr);
  CHECK(t.memory_s == doctest::Approx(copy_l2_roof_s(rep, on)));  // L2, not DRAM, binds
  CHECK(copy_l2_roof_s(rep, on) > 1.1 * stream_memory_s(rep, on));  // 179 against 157 us
  const double priced = price(rep, on, Impl::fused).time_s;
  CHECK(std::abs(priced / measured - 1) < 0.05);  // +2.7 %
  // Without the opt-in: the old sum (+8.5 %), and no L2 roof.
  CHECK(copy_l2_roof_s(rep, off) == 0);
  CHECK(price(rep, off, Impl::fused).time_s / measured - 1 > 0.06);
  // A plain copy or a cast never meets the roof: L2's rate is above DRAM's.
  const Op plain = ops::copy("c", 32768, 4096, DType::bf16);
  CHECK(copy_l2_roof_s(plain, on) < stream_memory_s(plain, on));
}

// validation/results/h200-streammix (2026-12-03, stream_probe.py): torch.compile'd casts, one Triton kernel
// each, 256 Mi elements (0.27-1.6 GB, past the L2), 5 calls in a CUDA graph. Nothing fitted on them. The
// write-heavy casts (1:2, 1:4) are the one-bus law's case: the old sum prices them 10-12 % slow, the law
// within 6 %, and since branch compdef every cast takes it (the default as the opt-in). The read-heavy
// ones (2:1) are priced alike by both (the calibration's copy and add). Copies stay on the sum without the
// opt-in: repeat_kv's expand (1:g) runs slower than the one bus at every g (h200-streammix/README.md).
TEST_CASE("Inductor casts past the L2 (h200-streammix): write-heavy ones at the one-bus rate") {
  struct Cast {
    DType from, to;
    double measured_s;
    bool write_heavy;
  };
  const Cast casts[] = {{DType::int8, DType::bf16, 195.14e-6, true},   {DType::int8, DType::fp32, 331.81e-6, true},
                        {DType::bf16, DType::fp32, 386.86e-6, true},   {DType::fp32, DType::bf16, 373.31e-6, false},
                        {DType::bf16, DType::int8, 191.29e-6, false}};
  const Roofs on = h200(true), off = h200(false);
  for (const Cast& c : casts) {
    const Op op = ops::cast("x.to", 65536, 4096, c.from, c.to);
    const double one_bus = price(op, on, Impl::compiled).time_s / c.measured_s - 1;
    const double def = price(op, off, Impl::compiled).time_s;
    CHECK(def / c.measured_s - 1 == doctest::Approx(one_bus));
    const double sum = (def - mixed_stream_s(op.bytes_read, op.bytes_written, kRead, kWrite) + op.bytes_read / kRead +
                        op.bytes_written / kWrite) / c.measured_s - 1;
    CAPTURE(to_string(c.from));
    CAPTURE(to_string(c.to));
    MESSAGE("cast " << to_string(c.from) << " -> " << to_string(c.to) << ": one bus " << 100 * one_bus << " %, sum " << 100 * sum << " %");
    CHECK(std::abs(one_bus) < 0.06);
    if (c.write_heavy) CHECK(sum > 0.08);
    else CHECK(sum == doctest::Approx(one_bus));
  }
}
