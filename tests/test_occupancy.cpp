// occupancy.hpp: resident blocks per SM, the limiting resource and waves (seed 002's grid of
// 240 blocks x 256 threads; CUDA occupancy-calculator rules), checked by hand on RTX 4080
// (CC 8.9: 1536 threads, 48 warps, 24 blocks, 64 K registers, 100 KiB shared memory per SM,
// 1 KiB reserved per block).
#include <doctest/doctest.h>

#include "perfmodel/errors.hpp"
#include "perfmodel/occupancy.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {
const Card& rtx4080() {
  static const Card c = test::catalogue().card("rtx-4080");
  return c;
}
}  // namespace

TEST_CASE("seed 002: 240 blocks x 256 threads = 61,440 threads, 1,920 warps") {
  const Occupancy o = occupancy(rtx4080(), {256, 32, 0}, 240);
  CHECK(o.grid_blocks == 240);
  CHECK(o.grid_threads == 61440);
  CHECK(o.grid_warps == 1920);
}

TEST_CASE("256-thread blocks with few registers: 6 blocks, 48 warps, 100 %, limited by threads") {
  // threads: min(48 warps / 8, 1536 / 256) = 6; registers: 32 x 32 = 1024 per warp -> 64 warps
  // -> 8 blocks; blocks: 24; shared memory: none requested -> 24.
  const Occupancy o = occupancy(rtx4080(), {256, 32, 0}, 240);
  CHECK(o.limit_threads == 6);
  CHECK(o.limit_registers == 8);
  CHECK(o.limit_blocks == 24);
  CHECK(o.blocks_per_sm == 6);
  CHECK(o.warps_per_sm == 48);
  CHECK(o.occupancy == test::approx(1.0));
  CHECK(o.limited_by == "threads");
  // Waves: 240 blocks over 76 SMs x 6 = 456 slots: 1 wave, 240 / 456 = 52.6 % filled.
  CHECK(o.waves == 1);
  CHECK(o.last_wave_fill == test::approx(240.0 / 456));
}

TEST_CASE("128 registers per thread: the register file limits to 2 blocks") {
  // 128 x 32 = 4096 registers per warp; 65536 / 4096 = 16 warps = 2 blocks of 8 warps.
  const Occupancy o = occupancy(rtx4080(), {256, 128, 0}, 240);
  CHECK(o.limit_registers == 2);
  CHECK(o.blocks_per_sm == 2);
  CHECK(o.warps_per_sm == 16);
  CHECK(o.occupancy == test::approx(16.0 / 48));
  CHECK(o.limited_by == "registers");
  // 240 blocks over 76 x 2 = 152 slots: 2 waves; the last holds 88 of 152.
  CHECK(o.waves == 2);
  CHECK(o.last_wave_fill == test::approx(88.0 / 152));
}

TEST_CASE("register allocation rounds up to 256 per warp") {
  // 33 registers x 32 = 1056 -> 1280 per warp; 65536 / 1280 = 51 warps -> 6 blocks of 8.
  const Occupancy o = occupancy(rtx4080(), {256, 33, 0}, 1);
  CHECK(o.limit_registers == 6);
  // 40 registers x 32 = 1280 per warp: the same 6.
  CHECK(occupancy(rtx4080(), {256, 40, 0}, 1).limit_registers == 6);
  // 72 x 32 = 2304 per warp -> 28 warps -> 3 blocks.
  CHECK(occupancy(rtx4080(), {256, 72, 0}, 1).limit_registers == 3);
}

TEST_CASE("48 KiB of shared memory per block: shared memory limits to 2 blocks") {
  // (48 + 1 reserved) KiB per block; 100 KiB / 49 KiB = 2.04 -> 2 blocks, 16 warps, 33 %.
  const Occupancy o = occupancy(rtx4080(), {256, 32, 48.0 * 1024}, 240);
  CHECK(o.limit_shared_memory == 2);
  CHECK(o.blocks_per_sm == 2);
  CHECK(o.warps_per_sm == 16);
  CHECK(o.limited_by == "shared_memory");
  CHECK(o.occupancy == test::approx(1.0 / 3));
  CHECK(o.waves == 2);
  // 49 KiB + 1 KiB reserved = 50 KiB: exactly 2 fit; 50 KiB + 1 = 51 KiB: only 1.
  CHECK(occupancy(rtx4080(), {256, 32, 49.0 * 1024}, 1).limit_shared_memory == 2);
  CHECK(occupancy(rtx4080(), {256, 32, 50.0 * 1024}, 1).limit_shared_memory == 1);
}

TEST_CASE("small blocks: the blocks-per-SM limit") {
  // 32-thread blocks: threads allow min(48 / 1, 1536 / 32) = 48, but at most 24 blocks per SM.
  const Occupancy o = occupancy(rtx4080(), {32, 32, 0}, 10000);
  CHECK(o.blocks_per_sm == 24);
  CHECK(o.limited_by == "blocks");
  CHECK(o.warps_per_sm == 24);
  CHECK(o.occupancy == test::approx(0.5));
  // 10000 blocks over 76 x 24 = 1824 slots: 6 waves (5 full + 880 blocks).
  CHECK(o.waves == 6);
  CHECK(o.last_wave_fill == test::approx((10000.0 - 5 * 1824) / 1824));
}

TEST_CASE("A100 (64 warps per SM): 256-thread blocks reach 8 blocks and 100 %") {
  const Occupancy o = occupancy(test::catalogue().card("a100"), {256, 32, 0}, 240);
  CHECK(o.blocks_per_sm == 8);
  CHECK(o.warps_per_sm == 64);
  CHECK(o.occupancy == test::approx(1.0));
  // 240 blocks over 108 x 8 = 864 slots: 1 wave.
  CHECK(o.waves == 1);
}

TEST_CASE("impossible requests are InputErrors") {
  CHECK_THROWS_AS(occupancy(rtx4080(), {2048, 32, 0}, 1), InputError);
  CHECK_THROWS_AS(occupancy(rtx4080(), {0, 32, 0}, 1), InputError);
  CHECK_THROWS_AS(occupancy(rtx4080(), {256, 256, 0}, 1), InputError);
  CHECK_THROWS_AS(occupancy(rtx4080(), {256, 0, 0}, 1), InputError);
  CHECK_THROWS_AS(occupancy(rtx4080(), {256, 32, 100.0 * 1024}, 1), InputError);  // > 99 KiB per block
  CHECK_THROWS_AS(occupancy(rtx4080(), {256, 32, -1}, 1), InputError);
  CHECK_THROWS_AS(occupancy(rtx4080(), {256, 32, 0}, 0), InputError);
}
