#pragma once
// What quantized GEMM kernels cost on one card beyond their bytes and FLOPs (issue 12): the
// `quant:` section of hardware/<card>.calibration.yaml (docs/calibration.md), fitted by
// validation/scripts/quant/fit_quant.py on half of validation/results/h200-quant.
namespace perfmodel {

// A weight-only dequantizing GEMM (docs/model.md, "Quantized linears"): its packed-weight stream
// reaches `stream_efficiency` of the DRAM read rate, and the dequantization and MMA issue work,
// repeated for every row of x, costs `issue_per_row_element` warp instructions per row and
// weight element at the card's issue rate. 0 = not measured (the defaults below).
struct WeightOnlyCost {
  double stream_efficiency = 0;
  double issue_per_row_element = 0;
};

struct QuantCalibration {
  WeightOnlyCost int4;  // tinygemm W4A16 (torch._weight_int4pack_mm)
  WeightOnlyCost int8;  // torch._weight_int8pack_mm W8A16
};

// Documented defaults for cards without a measurement: the H200 fit of PyTorch's kernels
// (validation/results/h200-quant/README.md), carried in units that scale with the card's DRAM
// read rate and issue rate.
struct QuantDefaults {
  static constexpr WeightOnlyCost int4{0.335, 0.0617};
  static constexpr WeightOnlyCost int8{0.030, 2.0};
};

}  // namespace perfmodel
