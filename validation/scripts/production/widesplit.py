"""The wide-group decode calls' kernels apart (lead, planned 2026-12-06, twenty-sixth session; issue 10). cuDNN's
decode at GQA groups wider than its 16-row query tile is the last attention row of docs/targets.md that misses
(h200-widegroup 9.8 / 18.2 %, every split call fast: about 2.4 TB/s of K / V where 4.05 is priced). h100-widencu's
Nsight Compute pass settled the split count and the single DRAM read, and left two candidates: the merge kernel's time
in a replayed graph and the split CTAs' pace over their L2 rereads. torch.profiler's CUDA activity gives each kernel's
device time (lonesplit.main), so the split kernel and the merge are read apart, for cuDNN and FlashAttention-2 alike.

    python3 widesplit.py OUT SHAPES     # SHAPES: widegroup, widecheck or wideprobe (their DECODE and BACKENDS)
"""
import os
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import lonesplit
    shapes = __import__(sys.argv[2])
    lonesplit.main(sys.argv[1], shapes.DECODE, shapes.BACKENDS)
