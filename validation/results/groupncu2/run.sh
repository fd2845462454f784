#!/bin/bash
# groupncu2 (planned 2026-12-07, thirty-fifth session; issue 10): vLLM's default 64 x 64 x 32 fused_moe tile with every
# expert's blocks full (fixed routing, probe_twoblock.py), Mixtral-8x7B at 16 blocks an expert, under
# GROUP_SIZE_M 2, 16 and 32, timed and under Nsight Compute, against l2_reuse_sim.py's predictions committed
# before the run (README.md). Exploratory. ~2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
export PROBE_PICKS='{"mixtral-8x7b": [1024]}' PROBE_LAYOUTS=front
mkdir -p $OUT/groupncu2
nvidia-smi -L > $OUT/groupncu2/card.txt 2>&1; date -u >> $OUT/groupncu2/card.txt
for gm in 2 16 32; do
  d=$OUT/groupncu2/gm$gm; mkdir -p $d
  PROBE_GM=$gm timeout 60 python3 validation/scripts/moe/probe_twoblock.py time $d/time.jsonl > $d/time.log 2>&1
  echo "gm $gm time rc=$? $(wc -l < $d/time.jsonl) cases"
  PROBE_GM=$gm timeout 100 ncu --clock-control none -k regex:_fused_moe_gemm \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed \
    python3 validation/scripts/moe/probe_twoblock.py ncu > $d/ncu.txt 2> $d/ncu.err
  echo "gm $gm ncu rc=$? $(grep -c '^case' $d/ncu.txt) cases"
done
date -u >> $OUT/groupncu2/card.txt
cd $OUT && tar czf g.tgz groupncu2 && rm -rf groupncu2
