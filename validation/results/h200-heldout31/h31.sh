#!/bin/bash
# h200-heldout31's device run (lead, 2026-12-04, thirteenth session), from the repository root, OUT set. At most 8 files
# come back from a device call: run_all.py's empty hf.json is removed and the compiled run's nvidia-smi joins smi.txt.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 250 python3 validation/scripts/production/run_all.py $OUT --shapes heldout31 --groups attention,gemm,ops --budget 225 > /dev/null 2>&1; echo "run_all rc=$?"
rm -f $OUT/hf.json
timeout 130 python3 validation/scripts/production/hf_grid.py $OUT/hf --plan heldout31 --budget 110 > /dev/null 2>&1; echo "hf rc=$?"
mkdir -p $OUT/compiled; OUT=$OUT/compiled bash validation/results/h200-heldout31/compiled/run31c.sh; echo "compiled rc=$?"
cat $OUT/compiled/nvidia-smi.txt >> $OUT/smi.txt; rm -f $OUT/compiled/nvidia-smi.txt; date -u >> $OUT/date.txt
tail -3 $OUT/run.log | cut -c1-300; tail -3 $OUT/hf/run.log; cat $OUT/compiled/run.log | grep -v "^\s*$" | tail -12
