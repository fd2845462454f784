// Kernel kind `collective`: an NCCL collective between the GPUs of a tensor-, pipeline- or
// expert-parallel group (parallel.hpp). Priced whole by the collective model (collective.hpp:
// the algorithm and protocol NCCL picks, its latency and bandwidth, calibrated where measured);
// its roofline is the bytes each GPU must move over its link at the link's nominal rate.
#include <cmath>

#include "op_builders.hpp"
#include "perfmodel/collective.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

Op ops::collective(std::string name, CollectiveOp what, int gpus, double bytes, bool overlaps) {
  if (!(std::isfinite(bytes) && bytes > 0)) throw InputError(name + ": a collective needs a positive size");
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::collective;
  op.kernel = KernelId::collective;
  op.collective = what;
  op.collective_gpus = gpus;
  op.collective_bytes = bytes;
  op.overlaps = overlaps;
  return op;
}

namespace {

// The nominal rate of the slowest link the group spans, one direction (interconnect.hpp).
double link_bandwidth(const Card& card, int gpus, int nodes) {
  const Interconnect& ic = card.interconnect;
  if (nodes > 1 && ic.nic) return ic.nic->bandwidth_per_direction;
  if (ic.nvlink && gpus <= ic.nvlink_domain()) return ic.nvlink->bandwidth_per_direction;
  return ic.pcie.bandwidth_per_direction;
}

OpCost price_collective(const Op& op, const Roofs& r, Impl impl) {
  const CollectiveEstimate e = estimate_collective(r.card, op.collective, op.collective_gpus, op.collective_bytes,
                                                   r.collectives.any() ? &r.collectives : nullptr);
  OpCost c;
  c.device_time_s = e.time_s;
  c.overhead_time_s = e.latency_s;
  c.memory_time_s = e.bandwidth_time_s;  // the link's stream, not DRAM's
  c.nominal_bandwidth = link_bandwidth(r.card, op.collective_gpus, e.nodes);
  // What each GPU sends: nccl-tests' bus bytes (bytes x bus factor) over its link.
  c.roofline_time_s = c.nominal_bandwidth > 0 ? op.collective_bytes * e.bus_factor / c.nominal_bandwidth : 0;
  double time = e.time_s;
  if (impl == Impl::eager) {  // torch.distributed issues it from the host like any other kernel
    c.host_time_s = eager_host_time(op, r);
    time = std::max(time, c.host_time_s);
  }
  c.time_s = time;
  c.bound = e.latency_s >= e.bandwidth_time_s ? Bound::overhead : Bound::memory;
  c.distance_to_roof = c.roofline_time_s > 0 ? time / c.roofline_time_s : 1;
  return c;
}

}  // namespace

const KernelDef& kernel_def_collective() {
  static const KernelDef d{.id = KernelId::collective,
                           .name = "collective",
                           .accuracy_set = "collective",
                           .from_case = nullptr,
                           .instructions = {},
                           .cost = nullptr,
                           .price = price_collective};
  return d;
}

}  // namespace perfmodel
