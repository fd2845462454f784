#!/bin/bash
# prefillncu200's device run (planned 2026-12-06, twenty-ninth session), from the repository root, OUT set, on an H200
# only: the same Nsight Compute probe as h100-prefillncu (validation/results/prefillncu/run.sh) on the H200, to read
# whether the H200 (60 MB L2, 4.8 TB/s) re-reads the prefill GEMMs' expert weights from DRAM as the H100 (50 MB,
# 3.35 TB/s) does (1.4-3.7x at Mixtral's prefills). The H200's timed prefills (h200-moe-fused2) move their tile walk's
# L2 bytes at 8.4-8.6 TB/s, the H100's at 7.0-7.2 at the same clock: DRAM re-reads the L2 must fill are the candidate
# difference. A diagnosis: nothing is priced or fitted on it. Then heldout36 (pending since the twenty-sixth session)
# in the time left.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi -L
if ! nvidia-smi -L | grep -q H200; then echo "not H200"; exit 0; fi
mkdir -p $OUT/ncu && OUT=$OUT/ncu timeout 150 bash validation/results/prefillncu/run.sh
mkdir -p $OUT/h36 && OUT=$OUT/h36 timeout 400 bash validation/results/heldout36/h36.sh
cd $OUT && tar czf r.tgz ncu h36 && rm -rf ncu h36
