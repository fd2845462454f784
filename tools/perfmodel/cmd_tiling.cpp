// perfmodel tiling: what tiling an n x n matmul through shared memory saves (seed 000's practice,
// seed 001 slide 38): loads from slow memory naive and tiled, the largest square tile three of
// which fit in one SM's shared memory, and its intensity against the card's ridge.
#include "commands.hpp"
#include "perfmodel/gemm_tiling.hpp"

namespace perfmodel::cli {

int cmd_tiling(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  CardArgs card;
  int64_t n = 0, tile = 0;
  std::string dtype = "bf16";
  Format format = Format::table;
  add_card(d, card, false);
  d.add_options()("n", po::value(&n)->required(), "matrix size: C = A B with A, B, C n x n")(
      "tile", po::value(&tile)->required(), "square tile t (a divisor of n): t x t tiles of A and B per step")(
      "dtype", po::value(&dtype)->default_value(dtype), "element dtype (its bytes set the tile that fits)");
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx,
             "perfmodel tiling: loads of a naive and a tiled n x n matmul, the largest square tile in shared memory "
             "and its intensity",
             "perfmodel tiling --card rtx-4080 --n 32 --tile 8"))
    return 0;
  require_positive(n, "--n");
  require_positive(tile, "--tile");
  if (n % tile) throw UsageError("--tile " + std::to_string(tile) + " must divide --n " + std::to_string(n));
  const DType t = parse_dtype(dtype, "--dtype");
  Loaded l = load_card(card, ctx);
  const double elem = bytes_of(t);
  // Naive: each of the n^2 outputs reads a row of A and a column of B (2n^3 numbers); tiled: each
  // of the (n/t)^2 output tiles takes n/t steps of two t x t tiles (2n^3 / t): t times fewer.
  const double naive = naive_matmul_loads(n), tiled = tiled_matmul_loads(n, tile);
  // Three t x t tiles (A, B and the accumulator C) in one SM's shared memory; each step then does
  // 2t^3 FLOPs on 2t^2 loaded numbers: intensity t / bytes per element against slow memory.
  const double smem = l.card.limits.shared_memory_per_sm;
  const int64_t max_tile = max_square_tile(smem, elem);
  const double max_tile_intensity = static_cast<double>(max_tile) / elem;
  const double ridge = l.card.ridge(matmul_precision(t, false));
  Report r;
  r.command = "tiling";
  r.root.set("meta", make_meta("tiling", ctx.argv));
  Node res = Node::object();
  res.set("card", Node::text(l.card.key));
  res.set("n", Node::integer(n));
  res.set("tile", Node::integer(tile));
  res.set("dtype", Node::text(dtype));
  res.set("naive_loads", Node::number(naive, Hint::integer));
  res.set("tiled_loads", Node::number(tiled, Hint::integer));
  res.set("load_reduction", Node::number(naive / tiled, Hint::ratio));
  res.set("shared_memory_per_sm", Node::number(smem, Hint::bytes));
  res.set("max_tile", Node::integer(max_tile));
  res.set("max_tile_intensity", Node::number(max_tile_intensity, Hint::intensity));
  res.set("ridge", Node::number(ridge, Hint::intensity));
  r.root.set("result", std::move(res));
  r.fields.push_back({"tiled " + std::to_string(n) + "x" + std::to_string(n) + " matmul, " + dtype + ", on " + l.card.name,
                      "result",
                      {{"naive_loads", "numbers loaded, naive (2n^3)", Hint::integer},
                       {"tiled_loads", "numbers loaded, tiled (2n^3 / t)", Hint::integer},
                       {"load_reduction", "fewer loads", Hint::ratio},
                       {"shared_memory_per_sm", "shared memory per SM", Hint::bytes},
                       {"max_tile", "largest tile t (3 t^2 in shared)", Hint::integer},
                       {"max_tile_intensity", "its intensity (t / bytes)", Hint::intensity},
                       {"ridge", "ridge (nominal)", Hint::intensity}}});
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
