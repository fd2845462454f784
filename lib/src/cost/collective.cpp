// NCCL's choice of algorithm and protocol, and the cost of that choice (collective.hpp).
// Constants: NCCL 2.28.9 src/graph/tuning.cc (ncclTunerConstantsDefaults, ncclTopoTuneModel),
// the version PyTorch 2.11 ships on the lent 2xH200; with that machine's topology the model
// below reproduces the tuning table NCCL printed there (validation/results/h200x2-nccl/
// nccl_debug.log: e.g. AllReduce ring LL 7.8 us / 141 GB/s, Simple 15.2 us / 360 GB/s).
#include <algorithm>
#include <cmath>
#include <limits>

#include "cost/collective_tuning.hpp"
#include "perfmodel/collective.hpp"
#include "perfmodel/errors.hpp"

namespace perfmodel {

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::all_to_all: return "all_to_all";
    case CollectiveOp::send_recv: return "send_recv";
  }
  return "?";
}
std::string_view to_string(CollectiveAlgorithm a) {
  return a == CollectiveAlgorithm::ring ? "ring" : a == CollectiveAlgorithm::tree ? "tree" : "p2p";
}
std::string_view to_string(CollectiveProtocol p) {
  return p == CollectiveProtocol::ll ? "LL" : p == CollectiveProtocol::ll128 ? "LL128" : "Simple";
}

std::optional<CollectiveOp> parse_collective_op(std::string_view s) {
  for (auto op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                  CollectiveOp::all_to_all, CollectiveOp::send_recv})
    if (s == to_string(op)) return op;
  return std::nullopt;
}
std::string collective_op_names() { return "all_reduce, all_gather, reduce_scatter, all_to_all, send_recv"; }

double bus_factor(CollectiveOp op, int gpus) {
  const double n = gpus;
  switch (op) {
    case CollectiveOp::all_reduce: return 2 * (n - 1) / n;
    case CollectiveOp::send_recv: return 1;
    default: return (n - 1) / n;
  }
}

bool CollectiveCalibration::any() const {
  for (const auto& c : ring)
    if (c.latency_s > 0 || c.bus_bandwidth > 0) return true;
  return p2p.latency_s > 0 || p2p.bus_bandwidth > 0;
}

namespace {

bool is_p2p(CollectiveOp op) { return op == CollectiveOp::all_to_all || op == CollectiveOp::send_recv; }

// NCCL sends point-to-point messages up to NCCL_P2P_LL_THRESHOLD (16 KiB) per peer with LL
// (src/enqueue.cc), larger ones with Simple; p2p does not go through the tuning table.
constexpr double kP2pLlThresholdBytes = 16384;

}  // namespace

CollectiveEstimate estimate_collective(const Card& card, CollectiveOp op, int gpus, double bytes,
                                       const CollectiveCalibration* cal) {
  if (!(std::isfinite(bytes) && bytes > 0))
    throw InputError("a collective needs a positive size in bytes (got " + std::to_string(bytes) + ")");
  if (bytes > 0x1p50)  // 1 PiB per GPU: far past any memory; keeps every printed time readable
    throw InputError("a collective of more than 1 PiB per GPU is not modelled");
  const detail::NcclTopology topo = detail::nccl_topology(card, gpus);  // validates gpus and card
  CollectiveEstimate e;
  e.op = op;
  e.gpus = gpus;
  e.nodes = topo.nodes;
  e.bytes = bytes;
  e.path = topo.path;
  e.bus_factor = bus_factor(op, gpus);
  // A calibration measured over NVLink inside one node applies to that path only.
  const bool cal_applies = cal && cal->any() && topo.nodes == 1 && topo.intra == detail::LinkKind::nvlink;
  double latency = 0, algbw = 0;
  if (is_p2p(op)) {
    // Bytes that cross links: all of a send_recv's, (n-1)/n of an all_to_all's buffer.
    const double moved = bytes * (op == CollectiveOp::all_to_all ? (gpus - 1.0) / gpus : 1.0);
    const double per_peer = op == CollectiveOp::all_to_all ? bytes / gpus : bytes;
    e.algorithm = CollectiveAlgorithm::p2p;
    e.protocol = per_peer <= kP2pLlThresholdBytes ? CollectiveProtocol::ll : CollectiveProtocol::simple;
    const detail::NcclPrice p = detail::nccl_p2p_price(topo, e.protocol);
    e.candidates.push_back({e.algorithm, e.protocol, p.latency_s, p.algbw, p.latency_s + moved / p.algbw});
    latency = p.latency_s;
    double link_bw = p.algbw;
    if (cal_applies && cal->p2p.latency_s > 0) {
      latency = cal->p2p.latency_s;
      e.calibrated = true;
    }
    if (cal_applies && cal->p2p.bus_bandwidth > 0) link_bw = cal->p2p.bus_bandwidth;
    algbw = link_bw * bytes / moved;  // over the whole buffer
  } else {
    // NCCL's selection: every enabled (algorithm, protocol), lowest predicted time wins
    // (src/enqueue.cc topoGetAlgoInfo -> ncclTopoGetAlgoTime: lat + nBytes / bw).
    double best = std::numeric_limits<double>::infinity();
    detail::NcclPrice pick{};
    for (auto a : {CollectiveAlgorithm::tree, CollectiveAlgorithm::ring}) {
      for (auto p : {CollectiveProtocol::ll, CollectiveProtocol::ll128, CollectiveProtocol::simple}) {
        auto price = detail::nccl_price(topo, op, a, p);
        if (!price) continue;
        const double t = price->latency_s + bytes / price->algbw;
        e.candidates.push_back({a, p, price->latency_s, price->algbw, t});
        if (t < best) {
          best = t;
          e.algorithm = a;
          e.protocol = p;
          pick = *price;
        }
      }
    }
    latency = pick.latency_s;
    algbw = pick.algbw;
    if (cal_applies && e.algorithm == CollectiveAlgorithm::ring) {
      const auto& c = cal->ring[static_cast<size_t>(e.protocol)];
      if (c.latency_s > 0) {
        latency = c.latency_s + detail::ring_hop_latency(topo, op, e.protocol);
        e.calibrated = true;
      }
      if (c.bus_bandwidth > 0) algbw = c.bus_bandwidth / e.bus_factor;
    }
  }
  e.latency_s = latency;
  e.bandwidth_time_s = bytes / algbw;
  e.time_s = e.latency_s + e.bandwidth_time_s;
  e.algbw = bytes / e.time_s;
  e.busbw = e.algbw * e.bus_factor;
  return e;
}

}  // namespace perfmodel
