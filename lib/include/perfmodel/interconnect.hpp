#pragma once
// How a card talks to its peers (the card YAML's `interconnect:` section, docs/catalogue-schema.md):
// NVLink (generation, links, per-GPU bandwidth each way and both ways, per-hop latency), whether an
// NVSwitch joins all GPUs of a node, PCIe, and the node's NICs. SI units: bytes/s, seconds.
#include <optional>
#include <string>
#include <string_view>

namespace perfmodel {

struct NvLink {
  int generation = 0;
  int links = 0;                        // 0 = not stated
  double bandwidth_per_direction = 0;   // bytes/s, all links of one GPU, one direction
  double bandwidth_bidirectional = 0;   // bytes/s, both directions (the datasheet's "900 GB/s")
  double latency_s = 0;                 // one hop (NCCL's per-hop figure where no datasheet gives one)
};

struct Pcie {
  int generation = 0;
  int lanes = 0;
  double bandwidth_per_direction = 0;   // bytes/s
  double bandwidth_bidirectional = 0;   // bytes/s
};

enum class NicKind { infiniband, roce };
std::string_view to_string(NicKind k);

struct Nic {
  NicKind kind = NicKind::infiniband;
  double bandwidth_per_direction = 0;   // bytes/s of one NIC
  double latency_s = 0;                 // one network hop
  int per_node = 0;                     // compute NICs per node
};

struct Interconnect {
  int gpus_per_node = 1;
  bool nvswitch = false;                // true: NVLink joins every GPU of the node; false: NVLink pairs (bridge)
  std::optional<NvLink> nvlink;         // absent: peers talk over PCIe
  Pcie pcie;
  std::optional<Nic> nic;               // absent: no inter-node network stated

  // GPUs one NVLink domain spans: the node with an NVSwitch, a bridged pair without, 1 with no NVLink.
  int nvlink_domain() const { return !nvlink ? 1 : nvswitch ? gpus_per_node : 2; }
};

}  // namespace perfmodel
