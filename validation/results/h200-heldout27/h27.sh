#!/bin/bash
# h200-heldout27's device run (lead, 2026-12-04, ninth session), from the repository root, OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1
timeout 265 python3 validation/scripts/production/run_all.py $OUT --shapes heldout27 --groups attention,gemm,ops --budget 240 > /dev/null 2>&1; echo "run_all rc=$?"
timeout 140 python3 validation/scripts/production/hf_grid.py $OUT/hf --plan heldout27 --budget 120 > /dev/null 2>&1; echo "hf rc=$?"
mkdir -p $OUT/compiled; OUT=$OUT/compiled bash validation/results/h200-heldout27/compiled/run27c.sh; echo "compiled rc=$?"
tail -3 $OUT/run.log; tail -3 $OUT/hf/run.log; cat $OUT/compiled/run.log
