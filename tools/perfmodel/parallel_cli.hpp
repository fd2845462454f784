#pragma once
// --tp --pp --ep --dp --micro-batches on decode, prefill, ops and sweep-batch (issue 13), and the
// report's parallel section (docs/cli.md, "Parallelism").
#include "cli.hpp"
#include "perfmodel/evaluate.hpp"

namespace perfmodel::cli {

struct ParallelArgs {
  int tp = 1, pp = 1, ep = 1, dp = 1;
  int64_t micro_batches = 0;
};
void add_parallel(po::options_description& d, ParallelArgs& a);
// UsageError naming the flag for a degree below 1; the model and card checks are the library's.
void apply_parallel(const ParallelArgs& a, Workload& w);

Node parallelism_node(const Parallelism& p);
// The pipeline and replicas of a parallel evaluation: a `parallel` object and its table fields.
void add_parallel_report(Report& r, const Evaluation& e);

}  // namespace perfmodel::cli
