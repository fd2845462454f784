"""tf32 GEMMs at M 8-64 over weights of 0.5-17 M elements (helper tf32split, 2026-12-03): where cuBLAS
leaves its sm90 xmma 64x64 kernel for CUTLASS sm80 split-K + splitKreduce, and what those take."""
BACKENDS, PREFILL, DECODE = (), [], []
NK = [(1024, 1024), (2048, 512), (2048, 1024), (768, 3072), (3072, 768), (512, 8192), (1024, 4096),
      (4096, 1024), (3072, 2048), (1024, 8192), (2048, 4096), (4096, 2048), (8192, 1024), (2560, 4096),
      (3584, 3072), (4096, 3072)]
MS = (8, 16, 24, 32, 48, 64)


def gemm_shapes():
    return [("tf32", f"n{n}_k{k}", m, n, k) for n, k in NK for m in MS]
