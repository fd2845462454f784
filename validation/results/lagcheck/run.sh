#!/bin/bash
# lagcheck's device run (planned 2026-12-06, thirtieth session), from the repository root, OUT set, on either lent card:
# vLLM-style fused MoE layers at 20 points no set has (validation/scripts/moe/moe_plans.py PLAN_TOKENS["lagcheck"]:
# 1.1-2.8 padded row blocks an expert, the last block part-filled), priced before the run with and without the partner
# lag (prices_lag_<card>.txt: HEAD at this file's commit; prices_nolag_<card>.txt: de11e94, the commit before the lag).
# Rule set before the run: the partner lag stays if its grouped GEMMs' |error| median over the 20 layers is not higher
# than without it and its p90 is lower (score_moe_prices.py); else it is taken out.
# Then twoblock's fixed-routing probe again (validation/results/twoblock, the times; on an H100 also Nsight Compute:
# whether the lag's re-reads carry to a 50 MB L2 as the model carries them, by the L2's size). About 3 min.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
nvidia-smi -L; nvidia-smi > $OUT/smi.txt 2>&1; date -u > $OUT/date.txt
mkdir -p $OUT/moe
timeout 200 python3 validation/scripts/moe/run_fused2.py $OUT/moe --plan lagcheck --no-mla --budget 170 > /dev/null 2>&1
echo "run_fused2 rc=$?"; grep -c "ok True" $OUT/moe/run.log; grep -v "ok True" $OUT/moe/run.log | tail -3 | cut -c1-300
mkdir -p $OUT/twoblock
timeout 120 python3 validation/scripts/moe/probe_twoblock.py time $OUT/twoblock/time.jsonl > $OUT/twoblock/time.log 2>&1
echo "twoblock time rc=$? $(wc -l < $OUT/twoblock/time.jsonl) cases"
if nvidia-smi -L | grep -q H100; then
  timeout 150 ncu --clock-control none -k regex:_fused_moe_gemm \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,sm__cycles_elapsed.avg.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    python3 validation/scripts/moe/probe_twoblock.py ncu > $OUT/twoblock/ncu.txt 2> $OUT/twoblock/ncu.err
  echo "ncu rc=$? $(grep -c '^case' $OUT/twoblock/ncu.txt) cases"
fi
nvidia-smi >> $OUT/smi.txt 2>&1; date -u >> $OUT/date.txt
cd $OUT && tar czf r.tgz * && find . -mindepth 1 -maxdepth 1 ! -name r.tgz -exec rm -rf {} +
