"""tf32 GEMMs around one and two waves (lead, 2026-12-02): which sm90_xmma tile cuBLAS picks and when
it takes a workspace (the Memset before the kernel: the partial wave streamed), to fit the tf32
rule on. h200-heldout16 / h200-heldout17's tf32 cases stay out of the fit.

    python3 validation/scripts/production/run_all.py OUT --shapes tf3217 --groups gemm
"""
BACKENDS, PREFILL, DECODE = (), [], []
NK = [(4096, 4096), (5120, 14336), (9216, 3072), (2048, 2048), (8192, 8192), (14336, 4096), (3072, 6144)]
MS = (32, 100, 200, 300, 400, 512, 640, 777, 900, 1100, 1500, 2000, 3000, 4096)


def gemm_shapes():
    return [("tf32", f"n{n}_k{k}", m, n, k) for n, k in NK for m in MS]
