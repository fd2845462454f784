// perfmodel cards | models: what the catalogue holds.
#include <fstream>

#include "commands.hpp"
#include "perfmodel/analysis.hpp"
#include "perfmodel/catalogue.hpp"

namespace perfmodel::cli {

int cmd_cards(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  Format format = Format::table;
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx, "perfmodel cards: the GPUs in hardware/", "perfmodel cards --format csv")) return 0;
  Catalogue cat(ctx.data_root);
  Report r;
  r.command = "cards";
  r.root.set("meta", make_meta("cards", ctx.argv));
  Node rows = Node::array();
  for (const auto& key : cat.card_keys()) {
    Card c = cat.card(key);
    Node n = Node::object();
    n.set("key", Node::text(key));
    n.set("name", Node::text(c.name));
    n.set("architecture", Node::text(c.architecture));
    n.set("sm_count", Node::integer(c.sm_count));
    const Precision p = c.supports(Precision::bf16) ? Precision::bf16 : Precision::fp16;
    n.set("tensor_precision", Node::text(std::string(to_string(p))));
    n.set("tensor_peak", Node::number(c.peak[static_cast<int>(p)], Hint::flop_rate));
    n.set("fp32_peak", Node::number(c.peak[static_cast<int>(Precision::fp32)], Hint::flop_rate));
    n.set("bandwidth", Node::number(c.bandwidth, Hint::byte_rate));
    n.set("ridge", Node::number(c.peak[static_cast<int>(p)] / c.bandwidth, Hint::intensity));
    n.set("memory_bytes", Node::number(c.memory_bytes, Hint::bytes));
    n.set("l2_bytes", Node::number(c.l2_bytes, Hint::bytes));
    n.set("calibrated", Node::boolean(std::ifstream(cat.calibration_path(key)).good()));
    rows.push(std::move(n));
  }
  r.root.set("cards", std::move(rows));
  r.tables.push_back({"", "cards",
                      {{"key", "key", Hint::text},
                       {"name", "name", Hint::text},
                       {"sm_count", "SMs", Hint::integer},
                       {"tensor_precision", "tensor", Hint::text},
                       {"tensor_peak", "tensor peak", Hint::flop_rate},
                       {"fp32_peak", "FP32 peak", Hint::flop_rate},
                       {"bandwidth", "bandwidth", Hint::byte_rate},
                       {"ridge", "ridge", Hint::intensity},
                       {"memory_bytes", "memory", Hint::bytes},
                       {"l2_bytes", "L2", Hint::bytes},
                       {"calibrated", "calibrated", Hint::none}}});
  emit(r, format, ctx);
  return 0;
}

int cmd_models(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  Format format = Format::table;
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx, "perfmodel models: the models in models/", "perfmodel models")) return 0;
  Catalogue cat(ctx.data_root);
  Report r;
  r.command = "models";
  r.root.set("meta", make_meta("models", ctx.argv));
  Node rows = Node::array();
  for (const auto& key : cat.model_keys()) {
    Model m = cat.model(key);
    Node n = model_node(m);
    n.set("weight_bytes_bf16", Node::number(m.parameters() * 2, Hint::bytes));
    n.set("kv_bytes_per_token_bf16", Node::number(kv_bytes_per_token(m, DType::bf16), Hint::bytes));
    rows.push(std::move(n));
  }
  r.root.set("models", std::move(rows));
  r.tables.push_back({"", "models",
                      {{"key", "key", Hint::text},
                       {"name", "name", Hint::text},
                       {"parameters", "params", Hint::integer},
                       {"num_hidden_layers", "layers", Hint::integer},
                       {"hidden_size", "hidden", Hint::integer},
                       {"num_attention_heads", "heads", Hint::integer},
                       {"num_key_value_heads", "kv heads", Hint::integer},
                       {"head_dim", "head_dim", Hint::integer},
                       {"vocab_size", "vocab", Hint::integer},
                       {"weight_bytes_bf16", "weights (bf16)", Hint::bytes},
                       {"kv_bytes_per_token_bf16", "KV/token (bf16)", Hint::bytes}}});
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
