#!/bin/bash
# h100power's device run (twenty-seventh session), from the repository root, OUT set, the static perfmodel carried (perfmodel-gpu, the GPU half,
# as .dev-host/perfmodel-gpu; cmake -S . -B build-static -DPERFMODEL_STATIC=ON -DPERFMODEL_CUDA=ON, target perfmodel_cli):
# the power-cap section of calibrate on this card (an 8192^3 bf16 GEMM, the flash prefill kernel and a 1 GiB copy,
# each sustained 4 s after a rested burst), then fused prefill and decode steps replayed ~4 s each while nvidia-smi
# logs the SM clock, board power and clock-event reasons every 100 ms.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
export PERFMODEL_DATA_DIR=$PWD
nvidia-smi > $OUT/smi.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv -lms 100 > $OUT/smi.csv & SMI=$!
timeout 150 .dev-host/perfmodel-gpu calibrate --on-gpu --only power --card h100-sxm --raw $OUT/power-raw.json > $OUT/calibrate.log 2>&1
echo "calibrate rc=$?"
timeout 200 python3 validation/results/h100power/steps.py > $OUT/steps.jsonl 2> $OUT/steps.err; echo "steps rc=$?"
kill $SMI; tail -n 3 $OUT/calibrate.log; cut -c1-200 $OUT/steps.jsonl
