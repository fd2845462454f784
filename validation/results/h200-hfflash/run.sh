#!/bin/bash
# h200-hfflash's device run (lead, 2026-12-04, eleventh session), from the repository root, OUT set: the plan of
# validation/scripts/production/hfflash.py with SDPA held to its flash backend (flash/), then with the default
# backend (cudnn/); whether flash-attn itself is installed (flash_attn.txt).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
python3 -c "import flash_attn; print(flash_attn.__version__)" > $OUT/flash_attn.txt 2>&1
timeout 200 python3 validation/scripts/production/hf_grid.py $OUT/flash --plan hfflash --sdpa-backend flash --budget 170 > /dev/null 2>&1; echo "flash rc=$?"
timeout 200 python3 validation/scripts/production/hf_grid.py $OUT/cudnn --plan hfflash --budget 170 > /dev/null 2>&1; echo "cudnn rc=$?"
date -u >> $OUT/date.txt; tail -1 $OUT/flash_attn.txt; tail -4 $OUT/flash/run.log; tail -4 $OUT/cudnn/run.log
