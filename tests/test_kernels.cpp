// The kernel registry (kernels.def, lib/src/kernels/): every kind registered once, under its own
// id and name, and built from a measured case into an op of that kernel.
#include <doctest/doctest.h>

#include <set>

#include "perfmodel/kernel.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("every kernel kind is registered once, under its own id and a unique name") {
  REQUIRE(kernel_defs().size() == static_cast<size_t>(kKernelIdCount));
  std::set<std::string_view> names;
  for (int i = 0; i < kKernelIdCount; ++i) {
    const KernelDef& d = kernel_def(static_cast<KernelId>(i));
    CHECK(static_cast<int>(d.id) == i);
    CHECK(names.insert(d.name).second);
    CHECK((d.cost != nullptr || d.price != nullptr));
    CHECK(kernel_from_string(std::string(d.name)) == d.id);
    // NCCL collectives are measured and checked as their own set (tests/test_collective.cpp).
    if (d.id == KernelId::collective) CHECK(d.accuracy_set == "collective");
    else CHECK((d.accuracy_set == "gemm" || d.accuracy_set == "elementwise" || d.accuracy_set == "attention"));
  }
  CHECK_FALSE(kernel_from_string("frobnicate").has_value());
  CHECK(kernel_names().find("silu_mul") != std::string::npos);
}

TEST_CASE("a case becomes an op of its own kernel, priced to a finite positive time") {
  const Roofs roofs = make_roofs(test::catalogue().card("h200"), nullptr);
  for (const KernelDef* d : kernel_defs()) {
    if (!d->from_case) {
      KernelCase c;
      c.kernel = d->id;
      CHECK_THROWS_AS(to_op(c), InputError);
      continue;
    }
    KernelCase c;
    c.name = std::string(d->name);
    c.kernel = d->id;
    c.m = 64, c.n = 4096, c.k = 4096;
    c.rows = 64, c.cols = 4096;
    c.batch = 2, c.heads = 32, c.kv_heads = 8, c.q_len = 16, c.kv_len = 512, c.head_dim = 128, c.causal = true;
    const Op op = to_op(c);
    CAPTURE(d->name);
    CHECK(op.kernel == d->id);
    CHECK(op.bytes() > 0);
    const OpCost cost = price(op, roofs, Impl::fused);
    CHECK(cost.time_s > 0);
    CHECK(cost.time_s >= cost.roofline_time_s);
  }
}
