#pragma once
// NCCL collectives between GPUs of one card type (docs/model.md, "Collectives"): which algorithm
// (ring, tree) and protocol (LL, LL128, Simple) NCCL picks for a size, by NCCL's own tuning model
// (src/graph/tuning.cc), and what the pick costs: latency + bytes / algorithm bandwidth, with the
// latency and bandwidth measured by calibration where the card has one, else NCCL's model values.
// Sizes follow nccl-tests: all_reduce the buffer, all_gather the gathered output, reduce_scatter
// the input, all_to_all the send buffer, send_recv the message (bytes per GPU).
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfmodel/card.hpp"
#include "perfmodel/collective_op.hpp"
#include "perfmodel/error_band.hpp"

namespace perfmodel {

enum class CollectiveAlgorithm { ring, tree, p2p };
enum class CollectiveProtocol { ll, ll128, simple };
inline constexpr int kCollectiveProtocolCount = 3;

std::string_view to_string(CollectiveAlgorithm a);
std::string_view to_string(CollectiveProtocol p);
// nullopt when unknown; collective_op_names() lists the accepted spellings.
std::optional<CollectiveOp> parse_collective_op(std::string_view s);
std::string collective_op_names();

// nccl-tests' bus-bandwidth factor (doc/PERFORMANCE.md): busbw = algbw x factor, where
// all_reduce 2(n-1)/n, all_gather / reduce_scatter / all_to_all (n-1)/n, send_recv 1.
double bus_factor(CollectiveOp op, int gpus);

// Measured costs of NCCL's ring protocols and of its point-to-point path (calibration file,
// docs/calibration.md). A non-positive value is "not measured": NCCL's model value is used.
struct CollectiveCalibration {
  struct Cost {
    double latency_s = -1;      // fixed cost beyond the per-hop latencies (ring) / whole (p2p)
    double bus_bandwidth = 0;   // bytes/s, nccl-tests bus bandwidth
  };
  std::array<Cost, kCollectiveProtocolCount> ring;  // by CollectiveProtocol
  Cost p2p;                                         // all_to_all, send_recv
  int gpus = 0;                                     // measured with this many GPUs
  std::string source;                               // what it was fitted on
  // p10 / p90 of predicted / measured - 1 on the sizes the fit held out: the band every
  // collective's time carries (set "collective", error_band.hpp). Absent: no band is shown.
  std::optional<ErrorQuantiles> held_out_errors;
  bool any() const;
};
// The calibration file's `collectives:` section for `c` ("" when nothing is measured).
std::string to_yaml(const CollectiveCalibration& c);

// One (algorithm, protocol) as NCCL's tuning model prices it, and as perfmodel prices it.
struct CollectiveCandidate {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  CollectiveProtocol protocol = CollectiveProtocol::simple;
  double nccl_latency_s = 0, nccl_algbw = 0, nccl_time_s = 0;  // NCCL's model (selects)
};

struct CollectiveEstimate {
  CollectiveOp op = CollectiveOp::all_reduce;
  int gpus = 0, nodes = 1;
  double bytes = 0;
  std::string path;  // "nvlink", "pcie", "nvlink+network", "pcie+network"
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  CollectiveProtocol protocol = CollectiveProtocol::simple;
  double time_s = 0;
  double latency_s = 0;         // the fixed term
  double bandwidth_time_s = 0;  // bytes / algbw
  double algbw = 0, busbw = 0;  // bytes/s achieved over the whole time (nccl-tests' definitions)
  double bus_factor = 0;
  bool calibrated = false;      // latency and bandwidth of the pick came from a calibration
  std::vector<CollectiveCandidate> candidates;  // every enabled pair NCCL considered
};

// Throws InputError for gpus < 2, bytes <= 0 or non-finite, a card that is not NVIDIA's, or more
// GPUs than a node holds when the card states no NIC.
CollectiveEstimate estimate_collective(const Card& card, CollectiveOp op, int gpus, double bytes,
                                       const CollectiveCalibration* cal = nullptr);

// --- fitting the calibration on measurements (validation/scripts/nccl/bench_collectives.py) ---
struct CollectiveSample {
  CollectiveOp op = CollectiveOp::all_reduce;
  int gpus = 0;
  double bytes = 0, time_s = 0;
};
// Reads bench_collectives.py's CSV (graph-mode rows only). Throws InputError naming file:line.
std::vector<CollectiveSample> load_collective_samples(const std::string& csv_path);

struct CollectiveCheck {
  CollectiveSample sample;
  double predicted_s = 0;
  bool held_out = false;
  CollectiveProtocol protocol = CollectiveProtocol::simple;
  double error() const { return predicted_s / sample.time_s - 1; }
};
struct CollectiveFit {
  CollectiveCalibration calibration;
  std::vector<CollectiveCheck> checks;  // every sample, fitted or held out
  double held_out_median_abs_error = 0, held_out_max_abs_error = 0;
  double uncalibrated_median_abs_error = 0;  // NCCL's model values alone, same held-out sizes
};
// Fits on sizes whose log2 is even and holds out the odd ones (1 KiB, 4 KiB ... fitted; 2 KiB,
// 8 KiB ... checked). Least squares on relative error; per-hop latencies stay NCCL's.
CollectiveFit fit_collectives(const Card& card, const std::vector<CollectiveSample>& samples);

}  // namespace perfmodel
