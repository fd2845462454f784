"""One call measured once under Nsight Compute: a warm call first (cuDNN / flash plans, lazy loading), then the call
inside the NVTX range "measure" that the runs' `ncu --nvtx --nvtx-include "measure/"` selects, so ncu records every
kernel of that call and none of the warm-up's. Shared by flash2_ncu.py and widegroup_ncu.py.
"""
import torch


def measure_once(call):
    call()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("measure")
    call()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
