#pragma once
// How much of a working set that is touched over and over in the same order is still in L2 when
// it comes round again (docs/model.md, "L2 residency"). The validation harness cycles a small
// kernel through up to 1000 buffer sets; a serving loop re-touches its weights every step.
//
// With random replacement, each miss evicts a random line of the C bytes the set may use; a line
// survives one cycle of W bytes, in which W (1 - h) bytes miss, with probability
// exp(-(W / C)(1 - h)), and that is the hit rate h: the fixed point of h = exp(-x (1 - h)),
// x = W / C. It is 1 up to x = 1 and falls smoothly past it (x = 2: 0.20, x = 4: 0.02), not at
// once as under LRU, which misses every line of a cyclic set larger than the cache. C is
// calibrated (H200: about half of the 60 MiB L2, which is split in two partitions).
namespace perfmodel {

double cyclic_l2_hit(double working_set_bytes, double capacity_bytes);

}  // namespace perfmodel
