// The card YAML's `interconnect:` section -> Interconnect (docs/catalogue-schema.md).
#include <cmath>
#include <cstdint>

#include "catalogue/interconnect_loader.hpp"

namespace perfmodel {

std::string_view to_string(NicKind k) { return k == NicKind::infiniband ? "infiniband" : "roce"; }

namespace detail {
namespace {

// A stated bidirectional figure must be twice the one-way figure (datasheets round: 2 % slack,
// e.g. PCIe 4.0 x16 "31.5 GB/s per direction, 64 GB/s").
void check_both_ways(MapReader& m, double one_way, double both_ways) {
  if (std::abs(both_ways - 2 * one_way) > 0.02 * both_ways)
    m.fail("bandwidth_bidirectional", "must be twice bandwidth_per_direction (within 2 %)");
}

// Range limits (issue 14): far above any real part, low enough that products stay finite and
// integer conversions cannot overflow.
constexpr int64_t kMaxGpus = 1 << 20;
constexpr int64_t kMaxLinks = 1 << 16;
constexpr int64_t kMaxGeneration = 1000;
constexpr double kMaxBandwidth = 1e18;  // bytes/s
constexpr double kMaxLatency = 1.0;     // seconds

}  // namespace

Interconnect parse_interconnect(MapReader ic) {
  Interconnect x;
  x.gpus_per_node = static_cast<int>(ic.integer("gpus_per_node", 1, kMaxGpus));
  x.nvswitch = ic.opt_boolean("nvswitch").value_or(false);
  if (auto nv = ic.opt_map("nvlink")) {
    NvLink n;
    n.generation = static_cast<int>(nv->integer("generation", 1, kMaxGeneration));
    n.links = static_cast<int>(nv->opt_integer("links", 1, kMaxLinks).value_or(0));
    n.bandwidth_per_direction = nv->quantity("bandwidth_per_direction", Dimension::bytes_per_s, kMaxBandwidth);
    n.bandwidth_bidirectional = nv->quantity("bandwidth_bidirectional", Dimension::bytes_per_s, kMaxBandwidth);
    n.latency_s = nv->quantity("latency", Dimension::seconds, kMaxLatency);
    check_both_ways(*nv, n.bandwidth_per_direction, n.bandwidth_bidirectional);
    nv->finish();
    x.nvlink = n;
  } else if (x.nvswitch) {
    ic.fail("nvswitch", "an NVSwitch needs an nvlink section");
  }
  {
    MapReader p = ic.map("pcie");
    x.pcie.generation = static_cast<int>(p.integer("generation", 1, kMaxGeneration));
    x.pcie.lanes = static_cast<int>(p.integer("lanes", 1, kMaxLinks));
    x.pcie.bandwidth_per_direction = p.quantity("bandwidth_per_direction", Dimension::bytes_per_s, kMaxBandwidth);
    x.pcie.bandwidth_bidirectional = p.quantity("bandwidth_bidirectional", Dimension::bytes_per_s, kMaxBandwidth);
    check_both_ways(p, x.pcie.bandwidth_per_direction, x.pcie.bandwidth_bidirectional);
    p.finish();
  }
  if (auto n = ic.opt_map("nic")) {
    Nic nic;
    std::string kind = n->str("kind");
    if (kind == "infiniband") nic.kind = NicKind::infiniband;
    else if (kind == "roce") nic.kind = NicKind::roce;
    else n->fail("kind", "unknown NIC kind '" + kind + "' (accepted: infiniband, roce)");
    nic.bandwidth_per_direction = n->quantity("bandwidth_per_direction", Dimension::bytes_per_s, kMaxBandwidth);
    nic.latency_s = n->quantity("latency", Dimension::seconds, kMaxLatency);
    nic.per_node = static_cast<int>(n->integer("per_node", 1, kMaxGpus));
    n->finish();
    x.nic = nic;
  }
  ic.finish();
  return x;
}

}  // namespace detail
}  // namespace perfmodel
