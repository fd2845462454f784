#!/bin/bash
# quanth100c's device run (planned 2026-12-06, twenty-eighth session), from the repository root, OUT set: quantized
# GEMM shapes never run on an H100, priced before the run (prices.txt) with the die-latency stream carry
# (calibration_transfer.cpp die_latency_stream_efficiency). About 2 min. Results to validation/results/<card>-quanth100c.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
pip list 2>/dev/null | grep -i -E "flash|vllm|sglang|tensorrt|cudnn|triton|^torch " > $OUT/packages.txt
python3 -c "import flash_attn_interface" >> $OUT/packages.txt 2>&1; echo "fa3 import rc=$?" >> $OUT/packages.txt
mkdir -p $OUT/quant5 $OUT/fp8mm14 $OUT/quant2
timeout 100 python3 validation/scripts/quant/run_quant5.py $OUT/quant5 --budget 80 > /dev/null 2>&1; echo "quant5 rc=$?"
timeout 100 python3 validation/scripts/quant/run_fp8mm14.py $OUT/fp8mm14 --budget 80 > /dev/null 2>&1; echo "fp8mm14 rc=$?"
timeout 150 python3 validation/scripts/quant/run_quant2.py $OUT/quant2 --parts cases --budget 130 > /dev/null 2>&1; echo "quant2 rc=$?"
nvidia-smi >> $OUT/smi.txt 2>&1; date -u >> $OUT/date.txt
for f in quant5 fp8mm14 quant2; do tail -1 $OUT/$f/run.log | cut -c1-200; done; cat $OUT/packages.txt
