#pragma once
// Occupancy: how many blocks and warps of a kernel are resident on one SM, which resource
// limits it, and how many waves a grid takes (seed 002; CUDA occupancy calculator rules).
#include <cstdint>
#include <string>

#include "perfmodel/card.hpp"

namespace perfmodel {

struct KernelResources {
  int threads_per_block = 256;
  int registers_per_thread = 32;
  double shared_memory_per_block = 0;  // bytes
};

struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double occupancy = 0;  // active warps / max warps per SM
  std::string limited_by;  // threads | warps | blocks | registers | shared_memory
  int limit_threads = 0, limit_blocks = 0, limit_registers = 0, limit_shared_memory = 0;
  int64_t grid_blocks = 0, grid_warps = 0, grid_threads = 0;
  int64_t waves = 0;  // ceil(grid / (SMs x blocks_per_sm))
  double last_wave_fill = 0;  // share of SM slots busy in the last wave
};

// Register allocation: per warp, rounded up to 256 registers (CC >= 3.0); shared memory: the
// block's request plus the per-block system reservation. Throws InputError for impossible
// requests (too many threads, registers or shared memory per block).
Occupancy occupancy(const Card& card, const KernelResources& k, int64_t grid_blocks);

}  // namespace perfmodel
