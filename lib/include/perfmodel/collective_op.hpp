#pragma once
// The NCCL operations GPUs exchange data with (collective.hpp prices them): apart, so that an Op
// and a layer-graph node can name one without the whole collective model.
#include <string_view>

namespace perfmodel {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, all_to_all, send_recv };
std::string_view to_string(CollectiveOp op);

}  // namespace perfmodel
