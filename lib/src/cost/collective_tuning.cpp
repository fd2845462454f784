// NCCL 2.28.9's tuning model on a card (collective_tuning.hpp). Every constant below is NCCL's
// (src/graph/tuning.cc: ncclTunerConstantsDefaults, ncclTopoTuneModel); GB/s and us there.
#include "cost/collective_tuning.hpp"

#include <algorithm>
#include <cmath>

#include "perfmodel/errors.hpp"

namespace perfmodel::detail {
namespace {

constexpr int kTree = 0, kRing = 1;
constexpr int kLL = 0, kLL128 = 1, kSimple = 2;
constexpr int kNet = 2;
// baseLatencies [Tree, Ring][LL, LL128, Simple], us.
constexpr double kBaseLatUs[2][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};
// hwLatencies [NVLINK, PCI, NET][Tree, Ring][LL, LL128, Simple], us.
constexpr double kHwLatUs[3][2][3] = {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},
                                      {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},
                                      {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}}};
// llMaxBws [compCapIndex][1 node, 2 nodes, more], GB/s; multi-node rows are keyed by the CPU
// in NCCL (row 0: Intel), single-node rows by the GPU.
constexpr double kLlMaxBw[4][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
constexpr double kPerChRingLl128Bw[4] = {20.0, 20.0, 36.7, 73.4};
constexpr double kPerChTreeLl128Bw[4][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kPerChTreeBw[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
// The ring graph's share of a link's nominal one-way rate: NCCL rates an SM80 NVLink at
// 20.0 GB/s and an SM90 one at 20.6 GB/s of 25 (src/graph/topo.h), and its channel search on
// the lent 2xH200 settled on 12 channels x 30 GB/s = 360 of 450 GB/s; a Gen3 x16 PCIe link it
// rates at 12 GB/s of 15.75 (PCI_BW).
constexpr double kNvlinkGraphShare = 0.8;
constexpr double kPcieGraphShare = 12.0 / 15.75;
// Channels of that ring graph: 12 on the lent NVLink pair (nccl_debug.log "Pattern 4, nChannels
// 12"); 2 on PCIe (NCCL's usual PCIe-only rings; only per-channel caps use this).
constexpr int kNvlinkChannels = 12, kPcieChannels = 2;

constexpr double us = 1e-6, gbps = 1e9;

int node_index(int nodes) { return nodes <= 2 ? nodes - 1 : 2; }
int steps(CollectiveOp op, int n) { return op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1; }

// A protocol's hop latency: the card's (or NIC's) stated hop latency stands for NCCL's LL
// figure; LL128 and Simple add NCCL's excess over LL for that link and algorithm.
double hop_s(const NcclTopology& t, int hw, int algo, int proto) {
  const double stated = hw == kNet ? t.net_hop_s : (t.intra == LinkKind::nvlink ? t.intra_hop_s : 0);
  const double base = stated > 0 ? stated : kHwLatUs[hw][kRing][kLL] * us;
  return base + (kHwLatUs[hw][algo][proto] - kHwLatUs[hw][kRing][kLL]) * us;
}

}  // namespace

NcclTopology nccl_topology(const Card& card, int gpus) {
  if (gpus < 2) throw InputError("a collective needs at least 2 GPUs (got " + std::to_string(gpus) + ")");
  if (gpus > 65536) throw InputError("a collective of more than 65536 GPUs is not modelled");
  if (card.vendor != "NVIDIA")
    throw InputError("card '" + card.key + "' is " + card.vendor +
                     "'s; the NCCL model covers NVIDIA cards only");
  const Interconnect& ic = card.interconnect;
  NcclTopology t;
  t.gpus = gpus;
  t.per_node = std::min(gpus, ic.gpus_per_node);
  t.nodes = (gpus + t.per_node - 1) / t.per_node;
  if (t.nodes > 1 && !ic.nic)
    throw InputError(std::to_string(gpus) + " GPUs need " + std::to_string(t.nodes) +
                     " nodes of " + std::to_string(ic.gpus_per_node) + ", but card '" + card.key +
                     "' states no node NIC (interconnect.nic)");
  const int major = card.compute_capability.empty() ? 8 : std::stoi(card.compute_capability);
  const bool minor_zero = card.compute_capability.size() >= 3 && card.compute_capability.back() == '0';
  t.arch = major >= 10 ? NcclArch::blackwell : major == 9 ? NcclArch::hopper : major == 8 ? NcclArch::ampere : NcclArch::volta;
  t.intra = ic.nvlink && t.per_node <= ic.nvlink_domain() ? LinkKind::nvlink : LinkKind::pcie;
  if (t.intra == LinkKind::nvlink) {
    t.channels = kNvlinkChannels;
    t.ring_bus = kNvlinkGraphShare * ic.nvlink->bandwidth_per_direction;
    t.intra_hop_s = ic.nvlink->latency_s;
    t.ll128 = minor_zero && major >= 7;
  } else {
    t.channels = kPcieChannels;
    t.ring_bus = kPcieGraphShare * ic.pcie.bandwidth_per_direction;
  }
  // NCCL's tree graph on the lent pair ran at twice the ring's (Pattern 1: 12 x 60 GB/s: with two
  // GPUs the tree uses both directions of the one link); with more GPUs per node the tree is a
  // chain through the node, taken here at the ring's rate (not measured: only 2 GPUs were lent).
  t.tree_bus = t.per_node == 2 ? 2 * t.ring_bus : t.ring_bus;
  if (t.nodes > 1) {
    t.inter_bus = ic.nic->bandwidth_per_direction * ic.nic->per_node / t.per_node;
    t.net_hop_s = ic.nic->latency_s;
    t.ring_bus = std::min(t.ring_bus, t.inter_bus);
    t.tree_bus = std::min(t.tree_bus, t.inter_bus);
  }
  t.path = std::string(t.intra == LinkKind::nvlink ? "nvlink" : "pcie") + (t.nodes > 1 ? "+network" : "");
  return t;
}

double ring_hop_latency(const NcclTopology& t, CollectiveOp op, CollectiveProtocol p) {
  const int proto = static_cast<int>(p);
  const int intra_hw = static_cast<int>(t.intra);
  const int n_steps = steps(op, t.gpus);
  const int n_inter = t.nodes == 1 ? 0 : steps(op, t.nodes);
  double intra = hop_s(t, intra_hw, kRing, proto);
  double inter = 0;
  if (t.nodes > 1) {
    // Inter-node rings launch a network post per step (getNetOverhead: 1 us, x3 for Simple);
    // with one rank per node the tree's network latency is exposed (tuning.cc).
    intra = std::max(intra, (p == CollectiveProtocol::simple ? 3.0 : 1.0) * us);
    inter = hop_s(t, kNet, t.per_node == 1 ? kTree : kRing, proto);
  }
  return (n_steps - n_inter) * intra + n_inter * inter;
}

std::optional<NcclPrice> nccl_price(const NcclTopology& t, CollectiveOp op, CollectiveAlgorithm a,
                                    CollectiveProtocol p) {
  if (a == CollectiveAlgorithm::p2p) return std::nullopt;
  if (a == CollectiveAlgorithm::tree && op != CollectiveOp::all_reduce) return std::nullopt;
  if (p == CollectiveProtocol::ll128 && !t.ll128) return std::nullopt;
  const int proto = static_cast<int>(p);
  const int arch = static_cast<int>(t.arch);
  const int idx2 = node_index(t.nodes);
  const double ll_max = (t.nodes == 1 ? kLlMaxBw[arch][0] : kLlMaxBw[0][idx2]) * gbps;
  NcclPrice price;
  if (a == CollectiveAlgorithm::ring) {
    double bus = t.ring_bus;
    if (p == CollectiveProtocol::ll) bus = std::min(ll_max, bus * 0.5);
    if (p == CollectiveProtocol::ll128) bus = std::min(bus * 0.92, t.channels * kPerChRingLl128Bw[arch] * gbps);
    price.algbw = bus / bus_factor(op, t.gpus);  // NCCL: busBw x nRanks / nsteps
    price.latency_s = kBaseLatUs[kRing][proto] * us + ring_hop_latency(t, op, p);
  } else {
    double bus = std::min(t.tree_bus * 0.92, t.channels * kPerChTreeBw[arch][idx2] * gbps);
    if (p == CollectiveProtocol::ll) bus = std::min(bus / 3.8, ll_max);
    if (p == CollectiveProtocol::ll128)
      bus = std::min(bus * (t.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), t.channels * kPerChTreeLl128Bw[arch][idx2] * gbps);
    price.algbw = bus * 0.5;
    const double intra = hop_s(t, static_cast<int>(t.intra), kTree, proto);
    const double inter = t.nodes > 1 ? hop_s(t, kNet, kTree, proto) : 0;
    price.latency_s = kBaseLatUs[kTree][proto] * us +
                      2 * ((t.per_node - 1) * intra + std::floor(std::log2(t.nodes)) * inter);
  }
  return price;
}

NcclPrice nccl_p2p_price(const NcclTopology& t, CollectiveProtocol p) {
  const int proto = static_cast<int>(p);
  const int arch = static_cast<int>(t.arch);
  NcclPrice price;
  const bool net = t.nodes > 1;
  price.latency_s = kBaseLatUs[kRing][proto] * us + hop_s(t, net ? kNet : static_cast<int>(t.intra), kRing, proto);
  double bw = t.ring_bus;
  if (p == CollectiveProtocol::ll) bw = std::min(kLlMaxBw[t.nodes == 1 ? arch : 0][node_index(t.nodes)] * gbps, bw * 0.5);
  price.algbw = bw;  // per byte that crosses a link
  return price;
}

}  // namespace perfmodel::detail
