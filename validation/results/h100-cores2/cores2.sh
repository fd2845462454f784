#!/bin/bash
# Planned after cores.sh (2026-12-05): the eager host's pace is a draw of the process (2.97-7.53 ms over 28 processes,
# not the vCPU, no steal). Is the draw the process's address-space layout or Python's hash seed? Three conditions,
# interleaved, six processes each, the same probe as cores.sh (Llama-2-7B's class at 4 layers): as it runs
# (`plain`), PYTHONHASHSEED=0 (`hash0`), and PYTHONHASHSEED=0 with address-space randomization off
# (`setarch -R`, `fixed`; if the container refuses personality(2), recorded and that condition skipped).
# If `fixed` is tight and `plain` spreads as before, the layout sets the pace. Stops at 420 s.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; cat /sys/kernel/mm/transparent_hugepage/enabled; cat /proc/sys/kernel/randomize_va_space;
  setarch "$(uname -m)" -R true && echo "setarch -R ok" || echo "setarch -R refused"; } > $OUT/env.txt 2>&1
fixed_ok=$(grep -c "setarch -R ok" $OUT/env.txt)
for i in 1 2 3 4 5 6; do
  for cond in plain hash0 fixed; do
    if [ $(( $(date +%s) - t0 )) -gt 420 ]; then echo "stop: time" >> $OUT/cores2.txt; break 2; fi
    case $cond in
      plain) pre="" ;;
      hash0) pre="env PYTHONHASHSEED=0" ;;
      fixed) [ "$fixed_ok" = 1 ] || continue; pre="env PYTHONHASHSEED=0 setarch $(uname -m) -R" ;;
    esac
    r=$(timeout 40 $pre python3 validation/scripts/production/profile_host.py --model llama2-7b --layers 4 2>/dev/null | tail -1)
    echo "i=$i cond=$cond at=$(( $(date +%s) - t0 )) $r" | tee -a $OUT/cores2.txt
  done
done
