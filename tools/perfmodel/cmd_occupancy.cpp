// perfmodel occupancy: resident blocks and warps per SM and the limiting resource (seed 002).
#include "commands.hpp"
#include "perfmodel/occupancy.hpp"
#include "perfmodel/units.hpp"

namespace perfmodel::cli {

int cmd_occupancy(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  CardArgs card;
  KernelResources k;
  std::string smem = "0 B";
  Format format = Format::table;
  int64_t grid = 1;
  add_card(d, card, false);
  d.add_options()("threads", po::value(&k.threads_per_block)->default_value(256), "threads per block")(
      "registers", po::value(&k.registers_per_thread)->default_value(32), "registers per thread")(
      "smem", po::value(&smem)->default_value(smem), "shared memory per block, e.g. 48 KiB")(
      "grid", po::value(&grid)->default_value(grid), "blocks in the grid (for waves)");
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx, "perfmodel occupancy: resident blocks/warps per SM, occupancy, limiting resource and waves",
             "perfmodel occupancy --card rtx-4080 --threads 256 --registers 64 --smem 16KiB --grid 240"))
    return 0;
  std::string why;
  double smem_bytes = 0;
  if (smem != "0" && smem != "0 B") {
    auto v = parse_quantity(smem, Dimension::bytes, &why, true);
    if (!v) throw UsageError("--smem: " + why);
    smem_bytes = *v;
  }
  k.shared_memory_per_block = smem_bytes;
  Loaded l = load_card(card, ctx);
  Occupancy o = occupancy(l.card, k, grid);
  Report r;
  r.command = "occupancy";
  r.root.set("meta", make_meta("occupancy", ctx.argv));
  Node res = Node::object();
  res.set("card", Node::text(l.card.key));
  res.set("threads_per_block", Node::integer(k.threads_per_block));
  res.set("registers_per_thread", Node::integer(k.registers_per_thread));
  res.set("shared_memory_per_block", Node::number(smem_bytes, Hint::bytes));
  res.set("blocks_per_sm", Node::integer(o.blocks_per_sm));
  res.set("warps_per_sm", Node::integer(o.warps_per_sm));
  res.set("occupancy", Node::number(o.occupancy, Hint::percent));
  res.set("limited_by", Node::text(o.limited_by));
  res.set("limit_threads", Node::integer(o.limit_threads));
  res.set("limit_blocks", Node::integer(o.limit_blocks));
  res.set("limit_registers", Node::integer(o.limit_registers));
  res.set("limit_shared_memory", Node::integer(o.limit_shared_memory));
  res.set("grid_blocks", Node::integer(o.grid_blocks));
  res.set("grid_threads", Node::integer(o.grid_threads));
  res.set("grid_warps", Node::integer(o.grid_warps));
  res.set("waves", Node::integer(o.waves));
  res.set("last_wave_fill", Node::number(o.last_wave_fill, Hint::percent));
  r.root.set("result", std::move(res));
  r.fields.push_back({"occupancy on " + l.card.name + " (" + std::to_string(l.card.sm_count) + " SMs, " +
                          std::to_string(l.card.limits.max_warps_per_sm) + " warps/SM max)",
                      "result",
                      {{"blocks_per_sm", "resident blocks per SM", Hint::integer},
                       {"warps_per_sm", "resident warps per SM", Hint::integer},
                       {"occupancy", "occupancy", Hint::percent},
                       {"limited_by", "limited by", Hint::text},
                       {"limit_threads", "  limit from threads/warps", Hint::integer},
                       {"limit_blocks", "  limit from blocks/SM", Hint::integer},
                       {"limit_registers", "  limit from registers", Hint::integer},
                       {"limit_shared_memory", "  limit from shared memory", Hint::integer},
                       {"grid_threads", "grid threads", Hint::integer},
                       {"grid_warps", "grid warps", Hint::integer},
                       {"waves", "waves", Hint::integer},
                       {"last_wave_fill", "last wave fill", Hint::percent}}});
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
