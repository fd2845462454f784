"""Shapes measured after branch splitodd's and softmaxocc's laws landed (lead, 2026-12-04, ninth session), never
measured before and never fitted on: the check of both laws at new widths.

    bash validation/results/h200-afterfit28/run.sh     # run_all.py --shapes afterfit28 --groups ops

- torch.compile'd F.rms_norm / F.layer_norm / torch.softmax at 8 new split shapes: chunks that divide the row with L
  a multiple of 4 only (26000 / 4) or even (24600 / 4, 29000 / 4) and ragged even (41000 / 6, 47000 / 6) or ragged odd
  (52000 / 7) or aligned (33000 / 5, 57344 / 7), one CTA an SM and several.
- eager torch.softmax at 10 new widths: the register kernel at reg_cnt 3-9 (two CTAs an SM to 6, one from 7), the
  shared-memory kernel (11008), at many rows and at 200-300.
"""
SPLITS = [(6, 26000), (12, 24600), (20, 41000), (150, 33000), (90, 47000), (40, 52000), (200, 29000), (120, 57344)]
SOFTMAX = [(3000, 2816), (1600, 4480), (4000, 6016), (2500, 6656), (1400, 7936), (3500, 8704), (2000, 11008),
           (6000, 3200), (300, 6656), (200, 8704)]


def ops_cases():
    import torch
    import eager_ops as eo
    for rows, cols in SOFTMAX:
        yield eo._rowcol_case("softmax_fused", rows, cols, "torch.eager")
    for kernel in ("rmsnorm", "layernorm", "softmax_fused"):
        for rows, cols in SPLITS:
            yield eo._rowcol_case(kernel, rows, cols, "torch.compile",
                                  compiled_fn=torch.compile(eo.OPS[kernel][0], dynamic=False))
