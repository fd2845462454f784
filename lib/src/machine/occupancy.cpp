#include "perfmodel/occupancy.hpp"

#include <algorithm>
#include <cmath>

#include "perfmodel/checked.hpp"
#include "perfmodel/errors.hpp"

namespace perfmodel {

namespace {
constexpr int kRegisterAllocationUnit = 256;  // registers, per warp (CUDA occupancy calculator)
}

Occupancy occupancy(const Card& card, const KernelResources& k, int64_t grid_blocks) {
  const SmLimits& L = card.limits;
  if (k.threads_per_block <= 0 || k.threads_per_block > L.max_threads_per_block)
    throw InputError("threads per block must be 1.." + std::to_string(L.max_threads_per_block) +
                     " on " + card.key + ", got " + std::to_string(k.threads_per_block));
  if (k.registers_per_thread <= 0 || k.registers_per_thread > L.max_registers_per_thread)
    throw InputError("registers per thread must be 1.." + std::to_string(L.max_registers_per_thread) +
                     " on " + card.key + ", got " + std::to_string(k.registers_per_thread));
  if (k.shared_memory_per_block < 0 || k.shared_memory_per_block > L.shared_memory_per_block)
    throw InputError("shared memory per block must be at most " +
                     std::to_string(static_cast<int64_t>(L.shared_memory_per_block)) + " bytes on " + card.key);
  if (grid_blocks <= 0) throw InputError("grid must have at least one block");

  Occupancy o;
  const int warps_per_block = (k.threads_per_block + L.warp_size - 1) / L.warp_size;
  o.limit_threads = std::min(L.max_warps_per_sm / warps_per_block, L.max_threads_per_sm / k.threads_per_block);
  o.limit_blocks = L.max_blocks_per_sm;
  const int regs_per_warp =
      (k.registers_per_thread * L.warp_size + kRegisterAllocationUnit - 1) / kRegisterAllocationUnit * kRegisterAllocationUnit;
  o.limit_registers = (L.registers_per_sm / regs_per_warp) / warps_per_block;
  const double smem = k.shared_memory_per_block + L.reserved_shared_memory_per_block;
  o.limit_shared_memory = k.shared_memory_per_block > 0
                              ? static_cast<int>(std::floor(L.shared_memory_per_sm / smem))
                              : L.max_blocks_per_sm;
  o.blocks_per_sm = std::min({o.limit_threads, o.limit_blocks, o.limit_registers, o.limit_shared_memory});
  if (o.blocks_per_sm == o.limit_registers) o.limited_by = "registers";
  if (o.blocks_per_sm == o.limit_shared_memory) o.limited_by = "shared_memory";
  if (o.blocks_per_sm == o.limit_blocks) o.limited_by = "blocks";
  if (o.blocks_per_sm == o.limit_threads) o.limited_by = "threads";
  o.warps_per_sm = o.blocks_per_sm * warps_per_block;
  o.occupancy = static_cast<double>(o.warps_per_sm) / L.max_warps_per_sm;
  o.grid_blocks = grid_blocks;
  // A grid near 2^63 blocks printed negative threads (issue 14).
  o.grid_threads = checked_mul({grid_blocks, k.threads_per_block}, "grid blocks x threads per block");
  o.grid_warps = grid_blocks * warps_per_block;
  if (o.blocks_per_sm > 0) {
    const int64_t slots = static_cast<int64_t>(card.sm_count) * o.blocks_per_sm;
    o.waves = grid_blocks / slots + (grid_blocks % slots != 0 ? 1 : 0);
    const int64_t last = grid_blocks - (o.waves - 1) * slots;
    o.last_wave_fill = static_cast<double>(last) / static_cast<double>(slots);
  }
  return o;
}

}  // namespace perfmodel
