// The eager step validation/results/h200-hostmod2's probe counted (host_counts.py): a catalogue model cut to
// `layers` decoder layers, batch 1, 256 tokens of cropped cache; the two eager host tests count its calls.
#pragma once

#include <string>

#include "perfmodel/step.hpp"
#include "test_support.hpp"

namespace test {

inline perfmodel::Step host_probe_step(const std::string& model, int64_t layers, perfmodel::Phase phase) {
  using namespace perfmodel;
  Model m = catalogue().model(model);
  m.layers = layers;
  Workload w;
  w.phase = phase;
  w.batch = 1;
  w.ctx = 256 + (phase == Phase::decode ? 1 : 0);
  w.impl = Impl::eager;
  w.eager_cache_cropped = true;
  return build_step(m, w);
}

}  // namespace test
