// The mixed read / write DRAM stream (stream_rate.hpp).
#include "stream_rate.hpp"

#include <algorithm>

namespace perfmodel {

double mixed_stream_s(double read, double written, double read_bandwidth, double write_bandwidth) {
  if (!(read_bandwidth > 0) || !(write_bandwidth > 0)) return 0;
  read = std::max(0.0, read);
  written = std::max(0.0, written);
  // A card whose writes are no slower than its reads (a calibration with write >= read) has no
  // turnaround to charge: each direction at its own rate.
  if (write_bandwidth >= read_bandwidth) return read / read_bandwidth + written / write_bandwidth;
  // (read + written) / read_bandwidth + min(read, written) x (1 / write_bandwidth - 1 / read_bandwidth),
  // written so that a read-heavy stream's sum is bit for bit the old one: the majority direction at
  // read_bandwidth, the minority at write_bandwidth.
  if (written <= read) return read / read_bandwidth + written / write_bandwidth;
  // The writes alone never beat write_bandwidth: a write-only fill streams at 3.38 TB/s (h200-castcopy,
  // fill_ of 1 GB), the calibration's write_bandwidth within 1.5 %. At 1:2 the bus binds (4.16 TB/s
  // of traffic, the int8 copy's 4.17), from about 1:3.5 the writes' own rate.
  return std::max(written / read_bandwidth + read / write_bandwidth, written / write_bandwidth);
}

}  // namespace perfmodel

#include "kernel_costs.hpp"

namespace perfmodel {

double copy_l2_roof_s(const Op& op, const Roofs& r) {
  if (!r.stream_one_bus || (op.kernel != KernelId::copy && op.kernel != KernelId::cast) || r.l2_bandwidth <= 0 || op.rows <= 0 || op.cols <= 0) return 0;
  const double loads = static_cast<double>(op.rows) * static_cast<double>(op.cols) * bytes_of(op.dtype);
  return (loads + op.bytes_written) / r.l2_bandwidth;
}

}  // namespace perfmodel
