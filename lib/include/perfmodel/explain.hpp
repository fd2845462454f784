#pragma once
// `--explain` (issue 14): every printed number expanded into its formula, the formula with the
// inputs plugged in, and where each input comes from (datasheet, calibration key, model file,
// the seeds), e.g.
//   AI_max = 2N / (n kv) = 2 × 6.738e9 / (2048 × 5.243e5) = 12.6
// `substituted` is an arithmetic expression (numbers, + - × /, parentheses, max(), floor()) that
// evaluates to `value` within the rounding of its numbers (tests/test_explain.cpp checks it).
#include <string>
#include <vector>

#include "perfmodel/evaluate.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/op.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

struct Explained {
  std::string name;         // the printed label, e.g. "AI_max"
  std::string formula;      // in symbols: "2N / (n kv)"
  std::string substituted;  // the same with numbers: "2 × 6.738e9 / (2048 × 5.243e5)"
  double value = 0;         // the printed value, SI units
  std::string unit;         // "s", "B", "FLOP", "B/s", "FLOP/B", "" (a count or a ratio)
  std::vector<std::string> inputs;  // "N = 6.738e9: parameters of models/llama2-7b.yaml (llama family)"
};

// One op's numbers, per instance: FLOPs, bytes, intensity, roofline time and predicted time,
// with the roofs' sources (Roofs::sources).
std::vector<Explained> explain_op(const Op& op, const OpCost& cost, const Roofs& roofs);

// The step's totals (time, roofline, FLOPs, bytes, intensity) from its ops.
std::vector<Explained> explain_step(const Evaluation& e, const Roofs& roofs);

// The analyses (seed 004 Day 16-17): tokens/s, TPOT and its floor, TTFT, weights, KV per token,
// AI(b), AI_max, ridge, b*, footprint, usable memory, largest batch, MFU, HFU.
std::vector<Explained> explain_analysis(const Model& m, const Evaluation& e, const Card& card, double utilization);

// A number as the substituted expressions write it: 4 significant digits, "e" exponents
// without '+' ("6.738e9"), integers below 1e7 in full.
std::string explain_number(double v);

// "name = formula\n    = substituted\n    = value unit\n      input ..." lines for a table report.
std::string render_explained(const std::vector<Explained>& items, const std::string& indent = "  ");

}  // namespace perfmodel
