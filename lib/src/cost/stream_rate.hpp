// The DRAM time of a stream that reads `read` bytes and writes `written` bytes (branch castcopy,
// issue 10; validation/results/h200-castcopy). HBM is one bus per channel: reads and writes share
// it, and each switch of direction leaves it idle for a turnaround (write-to-read / read-to-write).
// The memory controller batches the minority direction between runs of the majority one, so the
// turnarounds scale with the minority direction's bytes, not with the writes':
//
//   t = max((read + written) / read_bandwidth + min(read, written) x (1 / write_bandwidth - 1 / read_bandwidth),
//           written / write_bandwidth)
//
// read_bandwidth is the bus's one-direction rate, (1 / write_bandwidth - 1 / read_bandwidth) the
// turnaround time per byte of the minority direction. Both keys are the calibration's, fitted by
// `perfmodel calibrate` on a copy (1:1) and an add (2:1) (calibration_fit.cpp), where the writes are
// the minority: there the law is the old one (reads at read_bandwidth, writes at write_bandwidth)
// exactly. No parameter is added; what changes is a write-heavy stream, which the old sum priced as
// if writes alone ran at write_bandwidth: the int8 -> bf16 weight copy (1:2) runs at 4.17 TB/s of
// traffic at 28672 x 4096 (h200-int8-compiled: 84.5 us), which this law gives (4.16 TB/s, 2:1's
// rate), where the sum gave 3.77 TB/s (+11 %). The second term: the writes alone never run faster than
// write_bandwidth (a write-only fill_ of 1 GB: 3.38 TB/s, validation/results/h200-castcopy/mixrate.jsonl),
// which binds past about 1:3.5 (repeat_kv's 1:4 and 1:7, where L2 binds first: copy_l2_roof_s).
//
// Opt-in for copies (the calibration's stream_one_bus: 1; validation/results/h200-castcopy/README.md): with
// it the compiled profile's repeat_kv copies take the L2 roof below and h200-compiled2's Mistral-7B step,
// whose cuDNN decode SDPA is 10 % under, loses the over-price that hid it (test_graph_gap_accuracy's
// GPU-alone median past its 1.1 % bound). h200-streammix's expands (1:g, g = 2..8) sit between the laws:
// the sum -2 .. +6 %, the one bus -4 .. -12 %, with the L2 roof -11 .. +8 %. Casts take the law by
// default since branch compdef (price.cpp stream_memory_s).
#pragma once

namespace perfmodel {

// Seconds to stream `read` and `written` bytes at the calibration's two rates (B/s).
double mixed_stream_s(double read, double written, double read_bandwidth, double write_bandwidth);

}  // namespace perfmodel

namespace perfmodel {

struct Op;
struct Roofs;

// A copy's L2 roof (branch castcopy): every output element loads its source through L2, so a copy
// that writes more than it reads from DRAM (an expand materialized: transformers' repeat_kv, each KV
// head copied to `group` query heads) moves its loads and stores through L2 at l2_bandwidth (the
// calibration's L2-resident copy, reads and writes counted). Loads: the output's elements at the
// source dtype (op.dtype); a cast reads each source once (loads = its DRAM reads: never binds, L2's
// rate being above DRAM's). h200-compiled's repeat_kv kernels (triton_poi_fused_..._clone_..., K and V,
// 4 layers a step): Llama-3-8B b16 kv 2088 177 us a layer against 2 x 547 MB / 6131 GB/s = 178 us, b64
// kv 1064 359 against 364, Qwen2.5-7B b4 kv 4136 76 against 77, b8 kv 1064 42 against 40 (the DRAM
// stream: 157 / 299 / 58 / 30 us). 0 for other kernels.
double copy_l2_roof_s(const Op& op, const Roofs& r);

}  // namespace perfmodel
