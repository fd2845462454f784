// A calibration measured on one card, carried to another card of the same chip (docs/calibration.md,
// "Cards of one die").
//
// The H100 SXM5, the H800 SXM5 and the H200 are one GH100 die at one tensor clock: the same SMs,
// tensor cores and L2 slices, with different HBM stacks (3.35, 3.35 and 4.8 TB/s) and NVLink (900,
// 400, 900 GB/s). What a calibration measures on the SMs (GEMM and attention rates, kernel floors,
// per-CTA latencies, issue rates, thread chains, host costs) is a property of the die and the
// software, so it carries over; what it measures on DRAM carries over as the same share of the
// datasheet bandwidth (the HBM controller's efficiency), the L2's capacity as the same share of
// the L2, and NCCL's link figures only to a card with the same NVLink. Anchors: a bf16 8192^3
// matmul runs 797.5 TFLOP/s on an H100 SXM and 788 on the lent H200 (gpus-and-models.md, Part C
// rows 10-12: "H200 is the same").
#pragma once
#include <optional>
#include <string>

#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"

namespace perfmodel {

// One die: same architecture, compute capability, SM count and tensor clock.
bool same_die(const Card& a, const Card& b);

// `cal`, measured on `from`, as it prices `to` (same_die(from, to) required; throws otherwise).
Calibration transfer_calibration(const Calibration& cal, const Card& from, const Card& to);

class Catalogue;
// The calibration of another catalogue card of `card`'s die, carried to `card`; none when no such
// card has one. The first such card in key order.
std::optional<Calibration> sibling_calibration(const Catalogue& cat, const Card& card);

}  // namespace perfmodel
