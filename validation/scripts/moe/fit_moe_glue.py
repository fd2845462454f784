#!/usr/bin/env python3
"""Fits the eager profile's generic_operand_elements_per_s (hardware/h200.calibration.yaml,
profiles: eager: aten:) on the prefill steps of the fit set and reports every other step.

Usage: python3 validation/scripts/moe/fit_moe_glue.py [validation/results/h200-moe-contiguous/hf.json]

transformers 5's grouped_mm experts run four kernel families on TensorIterator's generic path
(elementwise_kernel<128, 4>) over the routed rows (S = tokens x top_k): act_fn on the gate chunk
(2 operands, S x I), act_fn(gate) * up (3, S x I), out * weights[:, None] (3, S x h) and a
masked_fill_ before each grouped GEMM (3: self, self, the [S, 1] mask; S x h and S x I). The
model (lib/src/cost/aten_kernel_cost.cpp): a kernel takes elements x operands / rate after its
floor. The rate is the fit set's operand elements over its time; the floors are the profile's
strided_floor (2.60 us), 6 kernels per MoE layer. Kernel times are per step (hf.json
top_kernels_s, names cut at 160 characters and summed); families by kernel name. The bf16 binary
family also holds the rotary embedding's q*cos and rotate_half(q)*sin of every layer (models
with the real-valued rotary; DeepSeek-V2's is complex, another family): those are taken out at
the dense profile's strided rate (eager_ops.cpp, eager_rotary), as the lowering prices them.
Fit set: qwen3-30b-a3b and deepseek-v2-lite prefill b1 ctx2048 (2 of the 20 steps).
"""
import json
import sys

import yaml

FAMILIES = ("elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::(anonymous namespace)::silu_kernel",
            "masked_fill_kernel",
            "elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16",
            "gpu_kernel_impl<at::native::BinaryFunctor<float, float, float, at::native::binary_internal::Mu")
FLOOR, KERNELS_PER_LAYER, STRIDED_RATE = 2.60e-6, 6, 4.6e11  # h200.calibration.yaml, eager aten
FIT = {("qwen3-30b-a3b", 1), ("deepseek-v2-lite", 1)}


def shape(model):
    y = yaml.safe_load(open(f"models/{model}.yaml"))
    layers = y["num_hidden_layers"] - y.get("first_k_dense_replace", 0)
    return layers, y["hidden_size"], y["moe_intermediate_size"], y["num_experts_per_tok"]


def operand_elements(s):
    layers, h, i, k = shape(s["model"])
    rows = s["batch"] * s["ctx"] * k
    return layers * rows * (2 * i + 3 * i + 3 * h + 3 * (h + i)), layers


def rotary_muls(s):
    y = yaml.safe_load(open(f"models/{s['model']}.yaml"))
    if "kv_lora_rank" in y:
        return 0.0
    heads = y["num_attention_heads"] + y.get("num_key_value_heads", y["num_attention_heads"])
    d = y.get("head_dim", y["hidden_size"] // y["num_attention_heads"])
    t = s["batch"] * s["ctx"]
    return y["num_hidden_layers"] * 2 * (2 * FLOOR + t * heads * d / STRIDED_RATE)


def measured(s):
    return sum(t for n, t in s["top_kernels_s"].items() if any(f in n for f in FAMILIES)) - rotary_muls(s)


def main(path):
    steps = [s for s in json.load(open(path))["steps"] if s["phase"] == "prefill" and s["ok"]]
    fit = [s for s in steps if (s["model"], s["batch"]) in FIT]
    ops = sum(operand_elements(s)[0] for s in fit)
    busy = sum(measured(s) - operand_elements(s)[1] * KERNELS_PER_LAYER * FLOOR for s in fit)
    rate = ops / busy
    print(f"generic_operand_elements_per_s: {rate:.3g}   # fitted on {len(fit)} steps")
    for s in steps:
        e, layers = operand_elements(s)
        p = e / rate + layers * KERNELS_PER_LAYER * FLOOR
        m = measured(s)
        tag = "fit" if s in fit else "held out"
        print(f"  {s['model']} prefill b{s['batch']} ctx{s['ctx']} ({tag}): generic kernels {m * 1e3:.2f} ms "
              f"measured, {p * 1e3:.2f} ms predicted, {p / m - 1:+.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-moe-contiguous/hf.json")
