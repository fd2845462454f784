// perfmodel accuracy: predictions recomputed for every measured case (filled by issue 4 work).
#include "commands.hpp"

namespace perfmodel::cli {
int cmd_accuracy(const std::vector<std::string>&, Context&) {
  throw UsageError("accuracy: not implemented yet");
}
}  // namespace perfmodel::cli
