#include "inductor_walk.hpp"

#include <algorithm>

namespace perfmodel {

// Where the looped layer_norm's time beyond its rows' issue goes (branch walkstep, one device call,
// validation/results/h200-walkstep: Inductor's kernel copied with the shape's constants, each CTA's
// SM and clock stamped at its start and after its store; its counts and times are Inductor's own).
// An SM holds 4 CTAs of 16 warps (32 registers). They start together and end staggered by the
// schedulers' priority, the youngest S x i + X after its start (X 1.0-2.4 us at 2-7 blocks: the
// first touch and the round's stagger, what the walk's fixed part prices), and after that first
// round each slot runs a row every S x i + 0-5 %: the compiled rate is right in steady state. What
// the later rounds add is the drain: the stagger persists to the end, and the SM's last CTA finishes
// alone (excess.txt: the busiest SM's span less its rows' issue less X is 0.2 us at 2 blocks,
// 1.0-1.4 at 4, 2.1-2.4 at 6, 2.4 at 7, 2.1 at 8 and 2.2 at 10; one round, 528 x 12288, 0.6). Not
// the instruction cache (stall_no_instruction <= 0.31 warps an issue at every width, ncu_table.txt)
// nor a partial last round (12 rows an SM are 3 full rounds of 4).
//
// The drain is priced as the last row's issue exposed (n rows' issue where the walk prices n - 1),
// a share of it rising linearly in the blocks from none at 4.2 blocks to all of it at 6.5: the
// least-squares ramp (its two ends) through the timelines' E - (walk - i) over one row's issue i
// (-0.46 at 2 blocks, 0.05 / 0.41 at 4, 0.68 / 0.88 at 6, 0.71 at 7, 1.19 at 8, 0.65 at 10; 1536
// and 3072 rows; excess.txt), fitted on h200-walkstep only, every committed set held out, its start
// bounded at 4 blocks or more: the free fit (2.6 -> 7.7 blocks, squared residual 0.51 against 0.64)
// prices h200-eltwise6's held-out 1056 x 8192 (4 blocks, two rounds) +3.1 % and moves that set's
// layer_norm median over its guard (3.1 > 2.9 %); at 4 blocks the drain is small and grows with the
// rounds (0.05 of a row at 3 rounds, 0.41 at 6), which the ramp does not price. It is issue: a call
// the DRAM stream bounds (h200-production's 8192 x 14336 at 3.9 TB/s) hides it under the stream.
// One round (at most 4 CTAs an SM) has no drain. Softmax was not timed so: not priced.
double inductor_drain_rows(const Op& op, double per_sm, double blocks) {
  constexpr double resident = 4, from_blocks = 4.2, full_blocks = 6.5;
  if (op.kernel != KernelId::layernorm || per_sm <= resident) return 0.0;
  return std::clamp((blocks - from_blocks) / (full_blocks - from_blocks), 0.0, 1.0);
}

}  // namespace perfmodel
