// One named term of a kernel's fixed time (the part that does not overlap its streaming), kept
// so that `--explain` can show the floors a price really used: a profile's measured floors
// (cuDNN's decode kernel, the production split-KV call) differ from the card's launch floor.
#pragma once

#include <string>

namespace perfmodel {

struct FixedPart {
  std::string what;        // e.g. "cuDNN decode kernel floor"
  double seconds = 0;
  std::string source_key;  // a Roofs::sources key naming where the value comes from
};

}  // namespace perfmodel
