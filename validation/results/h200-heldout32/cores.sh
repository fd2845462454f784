#!/bin/bash
# h200-heldout32's second device call (lead, 2026-12-05): is the eager host's pace a property of the vCPU a process
# lands on? The first call's walls ran 10.9-23.8 us per ATen call within one lease, steady within a process and
# changing between processes. Here the same probe (Llama-2-7B's class at 4 layers, profile_host.py) runs pinned to
# each vCPU in turn (taskset), twice round, and unpinned four times; /proc/stat before and after each gives every
# vCPU's steal time (the hypervisor running someone else on it). lscpu -e gives the SMT siblings.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_VISIBLE_DEVICES=0 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ date -u; lscpu; lscpu -e; nproc; cat /proc/loadavg; } > $OUT/cpu.txt 2>&1
n=$(nproc)
for round in 1 2; do
  for c in $(seq 0 $((n - 1))) u u; do
    if [ $(( $(date +%s) - t0 )) -gt 420 ]; then echo "stop: time" >> $OUT/cores.txt; break 2; fi
    grep "^cpu" /proc/stat > /tmp/stat0
    if [ "$c" = u ]; then pin=""; else pin="taskset -c $c"; fi
    r=$(timeout 40 $pin python3 validation/scripts/production/profile_host.py --model llama2-7b --layers 4 2>/dev/null | tail -1)
    grep "^cpu" /proc/stat > /tmp/stat1
    steal=$(paste /tmp/stat0 /tmp/stat1 | awk -v c="cpu$c" '$1==c || (c=="cpuu" && $1=="cpu") {print $20-$9}')
    echo "round=$round cpu=$c steal_ticks=$steal at=$(( $(date +%s) - t0 )) $r" | tee -a $OUT/cores.txt
  done
done
paste /tmp/stat0 /tmp/stat1 > /dev/null; grep "^cpu" /proc/stat >> $OUT/cpu.txt
