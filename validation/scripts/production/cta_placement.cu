// Where a grid's last, partial round of CTAs lands (lead, 2026-12-05, nineteenth session; issue 10, FlashAttention-2's
// tailpace miss). h200-tailprobe: FlashAttention-2's non-split decode (128 threads, 255 registers, two CTAs an SM) runs
// a last round of 8-120 CTAs past its 264 slots "alone" (1.8x a paired CTA's pace) at head dim 128, and at head dims
// 64 and 256 only while the round is small (8-24 CTAs); from 72-96 CTAs it costs a paired round. Whether the block
// scheduler puts a late CTA on an SM whose partner slot is busy, or doubles late CTAs up on an SM that freed both
// slots, decides it. This probe records it for a stand-in kernel: 128 threads, registers and dynamic shared memory
// holding two CTAs an SM (FlashAttention-2's 49 / 65.5 / 98 KB configurations), each CTA a fixed amount of
// throughput-bound FMA work (two on an SM share its pipes, as FA2's mma.sync tiles do) over a strided read. Every CTA
// writes its SM id (%smid) and its start and end (%globaltimer, ns).
//
//     nvcc -O3 -arch=sm_90 -o /tmp/cta_placement validation/scripts/production/cta_placement.cu
//     /tmp/cta_placement > cta.csv      (columns: smem_kb,work,grid,rep,block,sm,start_ns,end_ns)
//
// Read by cta_placement_table.py: per grid, the kernel's span, and for each CTA past the first round the number of
// other CTAs that shared its SM for most of its life. Nothing is fitted to it.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

__device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// `work` rounds of eight independent FMA chains a thread, 256 FMAs each (enough to keep the SM's FP32 pipes busy with
// one CTA's four warps, so that a second CTA halves each one's pace), and one 16-byte load a thread a round from `src`.
__global__ void __launch_bounds__(128) stand_in(const float4* src, size_t n, int work, float* sink,
                                                unsigned long long* rec) {
  extern __shared__ float smem[];
  const unsigned long long t0 = now_ns();
  float a[8];
  for (int i = 0; i < 8; ++i) a[i] = threadIdx.x * 0.001f + i;
  size_t idx = (static_cast<size_t>(blockIdx.x) * 128 + threadIdx.x) % n;
  float4 v = src[idx];
  for (int r = 0; r < work; ++r) {
    // The next round's load is issued before this round's FMAs, so its latency (about 1 us) hides behind 2048 FMAs a
    // thread (about 1 us of one warp's issue): the CTA is bound by its SM's FP32 pipes, not by the load.
    idx = (idx + 128 * 1031) % n;
    const float4 next = src[idx];
#pragma unroll 16
    for (int k = 0; k < 256; ++k) {
#pragma unroll
      for (int i = 0; i < 8; ++i) a[i] = fmaf(a[i], 1.0000001f, v.x);
    }
    v = next;
  }
  smem[threadIdx.x] = a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
  __syncthreads();
  if (threadIdx.x == 0) {
    sink[blockIdx.x] = smem[5];
    rec[3 * blockIdx.x] = smid();
    rec[3 * blockIdx.x + 1] = t0;
    rec[3 * blockIdx.x + 2] = now_ns();
  }
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t n = size_t{64} << 20;  // 1 GiB of float4, past the L2
  float4* src;
  CHECK(cudaMalloc(&src, n * sizeof(float4)));
  CHECK(cudaMemset(src, 0, n * sizeof(float4)));
  const int max_grid = 3 * sms;
  float* sink;
  unsigned long long* rec;
  CHECK(cudaMalloc(&sink, max_grid * sizeof(float)));
  CHECK(cudaMalloc(&rec, 3 * max_grid * sizeof(unsigned long long)));
  CHECK(cudaFuncSetAttribute(stand_in, cudaFuncAttributeMaxDynamicSharedMemorySize, 110 * 1024));
  std::vector<unsigned long long> host(3 * max_grid);
  std::printf("smem_kb,work,grid,rep,block,sm,start_ns,end_ns\n");
  const int smem_kb[] = {49, 66, 98};      // FlashAttention-2's d64 / d128 / d256 decode configurations
  const int works[] = {30, 60};            // about 30 and 60 us a CTA alone (2048 FMA clocks a round): two lives
  const int tails[] = {-24, 0, 8, 24, 48, 72, 96, 120};
  for (int kb : smem_kb) {
    // FlashAttention-2's shared-memory configurations as ncu read them (h200-lonecta): 132 KB at 49 / 66 KB a CTA, 196 KB
    // at 98 KB; two CTAs an SM either way. The carveout is a preference: the CTAs an SM it gives go to stderr.
    const int carve = kb < 90 ? 58 : 86;  // percent of 228 KB
    CHECK(cudaFuncSetAttribute(stand_in, cudaFuncAttributePreferredSharedMemoryCarveout, carve));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stand_in, 128, kb * 1024));
    std::fprintf(stderr, "smem %d KB: %d CTAs an SM (occupancy API), %d SMs\n", kb, per_sm, sms);
    for (int w : works) {
      for (int tail : tails) {
        const int grid = 2 * sms + tail;
        stand_in<<<grid, 128, kb * 1024>>>(src, n, w, sink, rec);  // warm
        CHECK(cudaGetLastError());
        for (int rep = 0; rep < 2; ++rep) {
          stand_in<<<grid, 128, kb * 1024>>>(src, n, w, sink, rec);
          CHECK(cudaDeviceSynchronize());
          CHECK(cudaMemcpy(host.data(), rec, 3 * grid * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
          for (int b = 0; b < grid; ++b)
            std::printf("%d,%d,%d,%d,%d,%llu,%llu,%llu\n", kb, w, grid, rep, b, host[3 * b], host[3 * b + 1], host[3 * b + 2]);
        }
      }
    }
  }
  return 0;
}
