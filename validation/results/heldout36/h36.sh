#!/bin/bash
# heldout36's device run (planned 2026-12-06, twenty-sixth session), from the repository root, OUT set, on either lent
# card: production kernels (run_all.py --shapes heldout36), transformers steps (hf_grid.py --plan heldout36) and
# torch.compile'd steps (run36c.sh). About 8 min. The results go to validation/results/<card>-heldout36.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
timeout 220 python3 validation/scripts/production/run_all.py $OUT --shapes heldout36 --groups attention,gemm,ops --budget 200 > /dev/null 2>&1; echo "run_all rc=$?"
rm -f $OUT/hf.json
timeout 115 python3 validation/scripts/production/hf_grid.py $OUT/hf --plan heldout36 --budget 100 > /dev/null 2>&1; echo "hf rc=$?"
mkdir -p $OUT/compiled; OUT=$OUT/compiled bash validation/results/heldout36/run36c.sh; echo "compiled rc=$?"
cat $OUT/compiled/nvidia-smi.txt >> $OUT/smi.txt; rm -f $OUT/compiled/nvidia-smi.txt; date -u >> $OUT/date.txt
tail -3 $OUT/run.log | cut -c1-300; tail -3 $OUT/hf/run.log; cat $OUT/compiled/run.log | grep -v "^\s*$" | tail -12
