#pragma once
// What perfmodel's own lowering of a recorded graph step holds (graph_gap_fit.cpp, compiled_graph_fit.cpp): the
// graph keys are fitted per launch and per static input, counted as `perfmodel decode --impl <profile>` counts them,
// so the keys are what perfmodel's launches need.
#include <cstdint>
#include <string>

#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

struct GraphLowering {
  int64_t launches = 0;      // kernel launches of one step (Step::launches)
  int64_t graph_inputs = 0;  // the compiled graph's static inputs (Op::graph_inputs); 0 for the fused profile
};

// `model` as it ran (cut to its measured depth by the caller); its position table is raised to reach `ctx`: the
// kernels do not care how far it reaches (TinyLlama was swept to 4096 tokens past its 2048).
GraphLowering lower_graph_step(Model model, Phase phase, int64_t batch, int64_t ctx, const Card& card,
                               const Calibration& cal, Impl impl);

// `profile`'s block of `cal`; throws InputError when the calibration has none (nothing to refit in).
ProfileCalibration& graph_profile_block(Calibration& cal, const std::string& profile);

}  // namespace perfmodel
