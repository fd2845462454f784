#!/bin/bash
# roworder3 (planned 2026-12-07 after h100-roworder; exploratory): (a) the three row orders under vLLM-style tuned tiles
# (64 x 128 x 64 s3, 32 x 128 x 128 s3, 128 x 256 x 64 s4) on Mixtral-8x7B at 8192 tokens; (b) Nsight Compute on the
# default tile's Mixtral-8x7B GEMMs at 8192 tokens in each order (one launch each). H100 or H200, ~2 min; OUT set.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
mkdir -p $OUT/roworder3
nvidia-smi -L > $OUT/roworder3/card.txt 2>&1; date -u >> $OUT/roworder3/card.txt
ROWORDER_CONFIGS="64,128,64,4,3;32,128,128,4,3;128,256,64,8,4" timeout ${ROWORDER_TIMEOUT:-150} \
  python3 validation/scripts/moe/probe_roworder.py $OUT/roworder3/order.jsonl 8192 mixtral-8x7b > $OUT/roworder3/log.txt 2>&1
echo "probe_roworder rc=$? $(wc -l < $OUT/roworder3/order.jsonl) records"; tail -1 $OUT/roworder3/log.txt | cut -c1-200
if command -v ncu > /dev/null; then
  ROWORDER_ONCE=1 timeout ${ROWORDER_NCU_TIMEOUT:-150} ncu --clock-control none -k regex:_fused_moe_gemm \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,sm__cycles_elapsed.avg.per_second \
    python3 validation/scripts/moe/probe_roworder.py /dev/null 8192 mixtral-8x7b > $OUT/roworder3/ncu.txt 2> $OUT/roworder3/ncu.err
  echo "ncu rc=$? $(grep -c '_fused_moe_gemm_kernel' $OUT/roworder3/ncu.txt) kernels"
fi
date -u >> $OUT/roworder3/card.txt
cd $OUT && tar czf r3.tgz roworder3 && rm -rf roworder3
