#pragma once
// The error statistics the quantization accuracy suites report and guard (issue 12): median and
// p90 of absolute errors |predicted / measured - 1|, the p90 as the element at 0.9 x (n - 1).
#include <algorithm>
#include <cstddef>
#include <vector>

namespace quant_test {

struct Stats {
  size_t n = 0;
  double median = 0, p90 = 0;
};

inline Stats stats(std::vector<double> e) {
  Stats s;
  s.n = e.size();
  if (e.empty()) return s;
  std::sort(e.begin(), e.end());
  s.median = e.size() % 2 ? e[e.size() / 2] : 0.5 * (e[e.size() / 2 - 1] + e[e.size() / 2]);
  s.p90 = e[static_cast<size_t>(0.9 * static_cast<double>(e.size() - 1))];
  return s;
}

}  // namespace quant_test
