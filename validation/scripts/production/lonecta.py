"""Branch flash2's probe of the lone-CTA pace (lead, 2026-12-04, eleventh session; issue 10): FlashAttention-2 prefill
at 1024 tokens (causal, one sequence) over 2-66 heads, so the grid runs from 16 CTAs (each alone on its SM) to 528
(two an SM, then waves). Planned after h200-flash30 showed its two grids of fewer CTAs than SMs 50-92 % over; this
is the fit data of `lone_pace`, h200-flash30 and h200-production stay held out.

    OUT=... bash validation/results/h200-lonecta/lone.sh
"""

PREFILL = ([(1, h, h, 1024, 128) for h in (2, 4, 8, 12, 16, 24, 33, 40, 50, 66)] +
           [(1, h, h, 1024, 64) for h in (4, 8, 16, 24, 33)] +
           [(1, h, h, 1024, 256) for h in (2, 4, 8, 16)])
DECODE = []
BACKENDS = ("flash",)
