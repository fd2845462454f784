// 1x128-group dynamic FP8 activation quantization as PyTorch runs it (act_quant_group_forms.hpp;
// issue 12). The torch ops are validation/scripts/quant/quant_gemm.py q_group_dyn:
//   g = x.float().reshape(T, K / 128, 128)
//   s = g.abs().amax(-1, keepdim=True).clamp(min=1e-12) / 448
//   q = (g / s).clamp(-448, 448).to(fp8).reshape(T, K);  scales s.reshape(T, K / 128).t().contiguous().t()
// Each form is what the kernel names of validation/results/h200-quant2's and h200-group16's
// act_quant group cases show a call launching, in order (h200-group16/kernel_split.json holds each
// kernel's own time; its inductor_code.json the generated Triton source).
#include "act_quant_group_forms.hpp"

#include "perfmodel/ops.hpp"
#include "perfmodel/quant.hpp"

namespace perfmodel {

namespace {

int64_t groups_of(const ActQuantCall& c) { return c.m * ((c.k + kScaleBlock - 1) / kScaleBlock); }

// Eager: one ATen kernel a torch op (h200-quant2's torch.eager group cases, 9 kernels, 8 at one row):
// x.float() (direct_copy's unrolled LoadWithCast kernel), abs of the fp32 copy (vectorized), the
// amax of each 128-value group (reduce_kernel<512, 1> over T x K/128 rows of 128: priced as ATen's
// reduce_kernel under the eager profile, act_quant_cost.cpp), the scales' .clamp(min) and / 448 (a
// multiply by the reciprocal, vectorized), g / s (the scale broadcast along the group:
// TensorIterator's generic elementwise_kernel<128, 2>), .clamp and .to(fp8) (vectorized), then the
// column-major scale copy .t().contiguous() (direct_copy through elementwise_kernel<128, 2>, a
// transposed source), which one row skips (a 1 x K/128 tensor's transpose is already contiguous).
std::vector<Op> eager_group_form(const std::string& name, const ActQuantCall& c) {
  const int64_t T = c.m, k = c.k, groups = groups_of(c);
  // Branch actqeager: the vectorized kernels and the amax drain their stores; every kernel after
  // the first but the amax reads what the chain just wrote (g / s reads g, written four kernels
  // before); the amax's rounds keep the harness's hit, as act_quant_forms.cpp's.
  auto drained = act_quant_eager_drained;
  auto chain = act_quant_eager_reads_chain;
  std::vector<Op> out;
  Op up = ops::cast(name + ".to_fp32", T, k, c.act, DType::fp32);
  up.strided = true;  // direct_copy_kernel's unrolled LoadWithCast path, as act_quant_forms.cpp eager_form
  out.push_back(up);
  out.push_back(chain(drained(ops::elementwise(name + ".abs", KernelId::other, T, k, DType::fp32, 1, 1, 1))));
  Op amax = ops::act_amax(name + ".group_amax", groups, kScaleBlock, DType::fp32);
  amax.bytes_written = static_cast<double>(groups) * 4;
  out.push_back(drained(amax));  // the harness's first-touch hit, as act_quant_forms.cpp's amax
  out.push_back(chain(drained(ops::elementwise(name + ".scale_clamp", KernelId::other, groups, 1, DType::fp32, 1, 1, 2))));
  out.push_back(chain(drained(ops::elementwise(name + ".scale_div", KernelId::mul, groups, 1, DType::fp32, 1, 1, 1))));
  Op div = ops::elementwise(name + ".div_scale", KernelId::mul, T, k, DType::fp32, 1, 1, 1);
  div.bytes_read += static_cast<double>(groups) * 4;
  div.strided = true;  // the broadcast scale: elementwise_kernel<128, 2>
  out.push_back(chain(div));
  out.push_back(chain(drained(ops::elementwise(name + ".clamp", KernelId::other, T, k, DType::fp32, 1, 1, 2))));
  out.push_back(chain(drained(ops::cast(name + ".to_fp8", T, k, DType::fp32, c.in))));
  if (T > 1) {
    Op t = ops::cast(name + ".scale_transpose", groups, 1, DType::fp32, DType::fp32);
    t.strided = true;  // a transposed source: TensorIterator's generic kernel
    out.push_back(chain(t));
  }
  return out;
}

// torch.compile(dynamic=True) (h200-quant2's torch.compile group cases; the generated code:
// h200-group16/inductor_code.json). Three Triton kernels, two for one row (a size of 1 is
// specialized into its own graph):
//   triton_per_fused__to_copy_abs_amax_clamp_div_view_0: a persistent reduction, one 128-value group
//     a row, that loads the group once, finds its amax and writes the whole quantization (the fp8
//     values into a (T, K/128, 128) buffer and the amax); its loads and stores masked (dynamic
//     shapes), so priced as Inductor's masked pointwise sweep (act_quant_cost.cpp, the one stream
//     share fitted for it), which a persistent reduction is (stream-bound, stream_cost.cpp), plus
//     its thread's chain over the 64 elements the autotuned block gives it
//     (lib/src/cost/inductor_lone_warp.cpp, branch group17: what it takes at <= 128 rows);
//   triton_poi_fused__to_copy_clamp_div_view_1: the reshape to (T, K) as a copy, because the
//     symbolic K/128 * 128 is not known to be K: each element's source index is
//     `128*ks1*(x // ks0) + (x % ks0) % (128*ks1)` with ks0, ks1 64-bit kernel arguments (K and
//     K // 128), so every fp8 element pays two 64-bit divisions (software sequences on the GPU)
//     and a one-byte unvectorized load: issue-bound (h200-group16/kernel_split.json: 290-335 G
//     elements/s at every width from 1024 rows up, 0.6 TB/s of its 2 bytes an element); at few
//     rows its warps issue alone, at the lone warp's rate (inductor_lone_warp.cpp);
//   triton_poi_fused_clamp_clone_t_view_2: the scales' clamp / 448 written transposed (a tiled
//     2-D pointwise kernel over T x K/128), more than one row only.
// FITTED (the one parameter of this file): thread instructions an element of the indexed copy, at
// the card's issue rate (Roofs::issue_rate, so another card's SMs and clock carry it): 88.3, the
// median over h200-group16/kernel_split.json's K = 4096 calls of 1024 and 4096 rows
// (validation/scripts/quant/fit_act_quant_group.py); the same figure from K = 3584 / 5120 / 14336 /
// 18944 (held out) is 87.4-90.6. About what two 64-bit divisions' software sequences, the
// one-byte load, the store and the mask take; no SASS was read.
constexpr double kIndexedCopyInstructions = 88.3;
// The blocks the dynamic graph's autotuner fixed at its first call and keeps at every size
// (h200-group16/inductor_code.json, each kernel's .best_config beside its source): the group
// quantization 32 groups of 128 a CTA (XBLOCK 32, 2 warps; the one-row graph's the same), the
// indexed copy XBLOCK 512 (4 warps; the one-row graph's 256). At few rows they leave each warp
// alone on its scheduler (lib/src/cost/inductor_lone_warp.cpp, branch group17).
constexpr int64_t kGroupQuantBlock = 32 * kScaleBlock, kCopyBlock = 512, kOneRowCopyBlock = 256;

std::vector<Op> compiled_group_form(const std::string& name, const ActQuantCall& c) {
  const int64_t T = c.m, k = c.k, groups = groups_of(c);
  std::vector<Op> out;
  Op quant = ops::act_quant(name + ".group_quant", T, k, c.act, c.in, Scaling::block, false);
  quant.strided = c.dynamic_shapes;  // masked against the size arguments: scalar accesses (act_quant_cost.cpp)
  if (c.dynamic_shapes) quant.inductor_block = kGroupQuantBlock;
  out.push_back(quant);
  Op view = ops::copy(name + ".view_copy", T, k, c.in);
  view.instructions = static_cast<double>(T) * static_cast<double>(k) * kIndexedCopyInstructions;
  view.inductor_block = T > 1 ? kCopyBlock : kOneRowCopyBlock;
  out.push_back(view);
  if (T > 1) out.push_back(ops::copy(name + ".scale_transpose", groups, 1, DType::fp32));
  return out;
}

}  // namespace

bool is_act_quant_group(const ActQuantCall& c, Impl impl) {
  return c.torch_ops && impl != Impl::fused && c.in == DType::fp8 && c.scaling == Scaling::block && c.dynamic &&
         (impl == Impl::eager || c.dynamic_shapes);
}

std::vector<Op> act_quant_group_kernels(const std::string& name, const ActQuantCall& c, Impl impl) {
  return impl == Impl::eager ? eager_group_form(name, c) : compiled_group_form(name, c);
}

}  // namespace perfmodel
