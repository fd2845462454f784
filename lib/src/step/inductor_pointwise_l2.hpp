#pragma once
// The L2 share of a measured Inductor pointwise call (SiLU*mul, rotary) as the harness rotates it
// (branch tinyl2). validation/scripts/production/harness.py cycles a tiny call through up to 1000
// buffer sets inside one CUDA graph, but only the inputs rotate: each call's output is freed as
// the capture moves on and the graph pool hands the next call the same block, so the bytes that
// cycle through L2 are sets x the inputs + one output, not `rotated_bytes` (sets x inputs and
// outputs) that to_op_on's share (kernel_case.cpp) is computed on. The measured tiny calls follow
// the inputs (docs/accuracy-notes.md, "Branch tinyl2"): SiLU*mul 3 x 3072 at 55 MB rotated (37 MB
// of inputs) runs 1.57 us, near the in-L2 1.34-1.51, where rotary at 52 MB rotated (26 MB of inputs)
// is in L2 and at 73-84 MB (37-42 MB of inputs) half-way.
namespace perfmodel {

// The share of the first touches that hit, `hit` being the random-replacement share of the whole
// rotated set (cyclic_l2_hit, x = rotated / capacity), for a call that reads `read_share` of its
// bytes: 1 while the inputs (x x read_share) fit the capacity, then a short exponential tail, which
// the probe of validation/results/h200-tinyl2 measured (the random-replacement law's is longer).
// 0 (a step's kernel, DRAM-fed) and 1 stay as they are.
double harness_inputs_hit(double hit, double read_share);

}  // namespace perfmodel
