#pragma once
// NCCL's tuning model (src/graph/tuning.cc, NCCL 2.28.9) on a card's interconnect: the topology
// NCCL would build, and its latency / algorithm bandwidth for each (algorithm, protocol).
#include <optional>
#include <string>

#include "perfmodel/collective.hpp"

namespace perfmodel::detail {

enum class LinkKind { nvlink = 0, pcie = 1 };  // NCCL_HW_NVLINK, NCCL_HW_PCI
enum class NcclArch { volta = 0, ampere = 1, hopper = 2, blackwell = 3 };  // NCCL's compCapIndex

struct NcclTopology {
  int gpus = 0, nodes = 1, per_node = 0;  // ranks, nodes, ranks per node
  LinkKind intra = LinkKind::pcie;
  NcclArch arch = NcclArch::ampere;
  int channels = 0;          // NCCL's ring graph channels
  double ring_bus = 0;       // bytes/s: channels x per-channel bandwidth of the ring graph
  double tree_bus = 0;       // bytes/s: same for the tree graph
  double inter_bus = 0;      // bytes/s per GPU through the node's NICs (0: one node)
  double intra_hop_s = 0;    // the card's per-hop latency (replaces NCCL's LL figure)
  double net_hop_s = 0;      // the NIC's per-hop latency (replaces NCCL's NET LL figure)
  bool ll128 = false;        // NCCL enables LL128 by default on NVLink of SM 7.0/8.0/9.0/10.0
  std::string path;
};

// Throws InputError: gpus < 2, not an NVIDIA card, or more GPUs than a node without a NIC holds.
NcclTopology nccl_topology(const Card& card, int gpus);

struct NcclPrice {
  double latency_s = 0;
  double algbw = 0;  // bytes/s, NCCL's algorithm bandwidth (size / algbw = bandwidth term)
};
// nullopt where NCCL disables the pair (tree outside all_reduce, LL128 where not enabled).
std::optional<NcclPrice> nccl_price(const NcclTopology& t, CollectiveOp op, CollectiveAlgorithm a,
                                    CollectiveProtocol p);
// Point-to-point (all_to_all, send_recv): one ring step's latency, the ring's link bandwidth.
NcclPrice nccl_p2p_price(const NcclTopology& t, CollectiveProtocol p);
// The per-hop part of a ring latency: (steps - inter-node steps) x intra hop + inter steps x net hop.
double ring_hop_latency(const NcclTopology& t, CollectiveOp op, CollectiveProtocol p);

}  // namespace perfmodel::detail
