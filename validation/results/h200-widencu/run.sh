#!/bin/bash
# h200-widencu (lead, planned 2026-12-05, nineteenth session), from the repository root, OUT set, nothing carried
# (~4 min). cuDNN's wide-group decode calls of h200-widegroup and h200-widecheck under Nsight Compute
# (validation/scripts/production/widegroup_ncu.py): every kernel of each call, its grid, block, registers, shared memory,
# occupancy limits, duration, DRAM and L2 bytes. Clocks as found (--clock-control none); caches flushed between
# replays (ncu's default), so the DRAM bytes are a cold call's.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
{ date -u; nvidia-smi; } > $OUT/smi.txt 2>&1
# FlashAttention-2's tailpace set again on this lease (~25 s; h200-tailpace's lease ran 1755-1980 MHz in part): whether
# its 4-13 % under at whole rounds is the lease's clocks or the kernel's paired pace. tailpace/{kernels.json,run.log}.
timeout 90 python3 validation/scripts/production/run_all.py $OUT/tailpace --shapes tailpace --groups attention \
  --budget 70 > /dev/null 2>&1; echo "tailpace rc=$?"; rm -f $OUT/tailpace/hf.json; tail -1 $OUT/tailpace/run.log | cut -c1-200
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
M=launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic
M=$M,launch__shared_mem_per_block_static,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
M=$M,launch__occupancy_limit_warps,launch__waves_per_multiprocessor,gpu__time_duration.sum,dram__bytes_read.sum
M=$M,dram__bytes_write.sum,lts__t_bytes.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active
M=$M,sm__cycles_active.avg,sm__cycles_active.max,gpc__cycles_elapsed.max
timeout 400 $NCU --clock-control none --nvtx --nvtx-include "measure/" --metrics $M --csv --page raw \
  python3 validation/scripts/production/widegroup_ncu.py > $OUT/ncu.csv 2> $OUT/ncu.log
echo "ncu rc=$?"; date -u >> $OUT/smi.txt
grep -c "^\"" $OUT/ncu.csv; tail -3 $OUT/ncu.log | cut -c1-300
# Where a grid's last, partial round lands (FlashAttention-2's tailpace miss; cta_placement.cu, a stand-in kernel at two
# CTAs an SM): cta.csv, read by cta_placement_table.py.
NVCC=$(which nvcc || echo /usr/local/cuda/bin/nvcc)
$NVCC -O3 -arch=sm_90 -o /tmp/cta_placement validation/scripts/production/cta_placement.cu > $OUT/cta.log 2>&1 &&
  timeout 60 /tmp/cta_placement > $OUT/cta.csv 2>> $OUT/cta.log; echo "cta rc=$?"; cat $OUT/cta.log
python3 validation/scripts/production/cta_placement_table.py $OUT/cta.csv 2>&1 | head -60
