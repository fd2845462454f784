// Inductor's add+RMSNorm at batch 1 (branch graphgap, issue 10). In every compiled decode trace at
// batch 1 the kernel is ONE CTA of 512 threads (validation/results/h200-compiled2: grid 1, block 512
// at 2048-4096 columns; h200-graphroles: the same kernel at 1 x 1024-8192 in a CUDA graph). The row
// is the CTA's whole work, so nothing overlaps the threads' chains: each thread loads, adds, squares
// and sums its elements, the block reduces, and the thread scales and stores them again. Timed in a
// graph with x just written and the residual and weight L2-warm (h200-graphroles, medians of 60):
// 1 x 2048 1.408 us, 1 x 3072 1.568, 1 x 4096 1.920 (4 x 4096, four lone CTAs: 1.920): the 512
// threads' elements a thread (cols / 512: 4, 6, 8) set it, 0.128 us an element, where the price's
// thread chain (stream_cost.cpp: one calibrated iteration of 8 elements up to 4096 columns,
// thread_chain.rmsnorm 0.276 us on the backend's tiny launches) is flat, and the in-graph steps run
// 1.79 us at 2048 columns (TinyLlama) against 2.40-2.42 at 4096 (Llama-3-8B, Llama-2-7B).
//
// Priced only where the CTA is alone with its one row and fewer elements than the calibrated
// iteration: 1025-2048 columns (the XBLOCK-2 block of 2048 columns with its second row masked, the
// real elements cols / 512 a thread). Between 2048 and 4096 columns the block is R0_BLOCK 4096 with
// its column mask issued in full: Qwen2.5-7B's 3584 columns run 2.48 us in the step, no faster than
// 4096's 2.40 (the mask's issue, not the elements): left to the calibrated iteration. Two rows a CTA
// (4 x 2048: 1.632 us) are not one chain of 8: the two rows' chains interleave; left as priced.
//
// kOneRowElement: the one fitted number, (1.920 - 1.408) / (8 - 4) from h200-graphroles' 1 x 2048
// and 1 x 4096 alone; held out: 1 x 3072 (-0.256 us against 4096, measured -0.352) and every
// compiled2 step (test_inductor_one_row.cpp, test_graph_gap_accuracy.cpp).
#include "inductor_one_row.hpp"

#include <algorithm>

namespace perfmodel {

namespace {
constexpr double kOneRowElement = 0.128e-6;  // s an element a thread of the lone 512-thread CTA
constexpr int64_t kThreads = 512, kIteration = 8, kBlock = 2048;
}  // namespace

double inductor_one_row_chain_s(const Op& op, const Roofs& r) {
  if (r.profile != "compiled" || op.kernel != KernelId::rmsnorm || op.launches != 1 || op.rows != 1 ||
      op.cols <= 1024 || op.cols > kBlock || !r.inductor.measured())
    return 0;
  const double elements = static_cast<double>(op.cols) / static_cast<double>(kThreads);
  return std::min(0.0, elements - static_cast<double>(kIteration)) * kOneRowElement;
}

}  // namespace perfmodel
