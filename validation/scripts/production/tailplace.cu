// tailplace (lead, planned 2026-12-05, twenty-second session; issue 10): where the block scheduler puts the last round
// of a grid of two-CTA-an-SM blocks, and how long each of its CTAs runs. h200-tailprobe measured FlashAttention-2's
// non-split decode at 264 + t CTAs: at head dim 128 a last round of 8-120 CTAs ran at a lone CTA's pace; at 64 and 256
// only the small ones did (8-24 CTAs), from 72 on they ran near the paired pace. perfmodel prices every last round
// paired (attention_prefill_flash2.cpp); a rule that frees a last round alone moved 16 tailprobe calls 19 % nearer and
// 17 others 18 % further (docs/accuracy-notes.md, twenty-second session). FlashAttention-2 cannot say where its CTAs
// ran; this kernel can: each CTA records its SM (%smid) and its start and end (%globaltimer).
//
// The kernel copies FlashAttention-2's decode walk in the BSHD cache transformers keeps (validation/scripts/production/
// attention.py: K and V as [batch, keys, KV heads, head dim]): CTA i is (sequence i % B, KV head i / B), FlashAttention-2's
// grid order (blockIdx.y the sequence, .z the head; x fastest); per tile of `tile_keys` keys it loads its head's row
// chunk of K and of V into shared memory, then spins `fma` dependent FMAs a thread over the tile (the MMAs and softmax
// stand-in), 128 threads. Shared memory is set so that two CTAs fit an SM, as FlashAttention-2's 255 registers a
// thread allow (ncu: launch__occupancy_limit_registers 2, h200-lonecta/ncu.csv).
//
// Build and run on the GPU machine (validation/results/tailplace/run.sh):
//   nvcc -O3 -arch=sm_90 -o /tmp/tailplace validation/scripts/production/tailplace.cu
//   /tmp/tailplace > ctas.csv
// Output: one line a CTA of the last repetition of each grid: head_dim,batch,kv_heads,keys,fma,ctas,cta,sm,start_ns,
// end_ns (times from the grid's first start), after a '#' line a grid with its event-timed median over 20 launches.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cudaError_t e = (x);                                                                \
    if (e != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

struct Record {
  unsigned sm;
  unsigned long long start, end;
};

__device__ __forceinline__ unsigned sm_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// kv: K then V, each [batch][keys][kv_heads][chunk] 16-byte vectors (chunk = head_dim x 2 B / 16).
__global__ void __launch_bounds__(128) walk(const int4* __restrict__ k, const int4* __restrict__ v, int batch,
                                             int kv_heads, int keys, int chunk, int tile_keys, int fma,
                                             Record* records, float* sink) {
  extern __shared__ int4 tile[];
  Record r;
  r.sm = sm_id();
  r.start = global_ns();
  const int seq = blockIdx.x % batch, head = blockIdx.x / batch;
  const size_t row = static_cast<size_t>(kv_heads) * chunk;  // one key's vectors over all heads
  const int4* kb = k + static_cast<size_t>(seq) * keys * row + static_cast<size_t>(head) * chunk;
  const int4* vb = v + static_cast<size_t>(seq) * keys * row + static_cast<size_t>(head) * chunk;
  const int per_tile = tile_keys * chunk;
  float acc = 0.f;
  for (int key0 = 0; key0 < keys; key0 += tile_keys) {
    for (int i = threadIdx.x; i < per_tile; i += blockDim.x) {
      const int key = key0 + i / chunk, col = i % chunk;
      if (key < keys) {
        tile[i] = kb[static_cast<size_t>(key) * row + col];
        tile[per_tile + i] = vb[static_cast<size_t>(key) * row + col];
      }
    }
    __syncthreads();
    for (int j = 0; j < fma; ++j) {
      const int4 x = tile[(threadIdx.x * 7 + j * 131) % (2 * per_tile)];
      acc = fmaf(acc, 1.0000001f, __int_as_float((x.x & 0x007fffff) | 0x3f800000));
    }
    __syncthreads();
  }
  if (acc == 1.2345f) sink[blockIdx.x] = acc;  // keeps the loop; never true in practice
  __syncthreads();
  if (threadIdx.x == 0) {
    r.end = global_ns();
    records[blockIdx.x] = r;
  }
}

struct Shape {
  int head_dim, kv_heads, keys;
  std::vector<int> batches;
};

int main() {
  // h200-tailprobe's three shapes and batches (validation/scripts/production/tailprobe.py): 240 CTAs, one full round
  // of 264 and last rounds of 8-132 CTAs.
  const std::vector<Shape> shapes = {
      {64, 4, 3000, {60, 66, 69, 72, 78, 84, 90, 96, 99}},
      {128, 8, 2000, {30, 33, 34, 36, 39, 42, 45, 48}},
      {256, 8, 1500, {30, 33, 34, 36, 39, 42, 45, 48}},
  };
  const int fmas[] = {0, 256};
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int smem = 100 * 1024;  // two CTAs an SM (228 KB), whatever the tile
  CHECK(cudaFuncSetAttribute(walk, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, walk, 128, smem));
  std::printf("# %s, %d SMs, %d CTAs an SM\n", prop.name, prop.multiProcessorCount, per_sm);
  std::printf("head_dim,batch,kv_heads,keys,fma,ctas,cta,sm,start_ns,end_ns\n");
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (const Shape& s : shapes)
    for (int fma : fmas)
      for (int b : s.batches) {
        const int chunk = s.head_dim * 2 / 16, ctas = b * s.kv_heads;
        // FlashAttention-2's key tiles: 128 at head dim 64, 64 past it (flash2_tiles), K and V within `smem`.
        const int tile_keys = s.head_dim <= 64 ? 128 : 64;
        const size_t vecs = static_cast<size_t>(b) * s.keys * s.kv_heads * chunk;
        int4 *k = nullptr, *v = nullptr;
        Record* rec = nullptr;
        float* sink = nullptr;
        CHECK(cudaMalloc(&k, vecs * sizeof(int4)));
        CHECK(cudaMalloc(&v, vecs * sizeof(int4)));
        CHECK(cudaMemset(k, 1, vecs * sizeof(int4)));
        CHECK(cudaMemset(v, 2, vecs * sizeof(int4)));
        CHECK(cudaMalloc(&rec, ctas * sizeof(Record)));
        CHECK(cudaMalloc(&sink, ctas * sizeof(float)));
        std::vector<float> ms;
        for (int rep = 0; rep < 23; ++rep) {
          CHECK(cudaEventRecord(e0));
          walk<<<ctas, 128, smem>>>(k, v, b, s.kv_heads, s.keys, chunk, tile_keys, fma, rec, sink);
          CHECK(cudaEventRecord(e1));
          CHECK(cudaEventSynchronize(e1));
          float t = 0;
          CHECK(cudaEventElapsedTime(&t, e0, e1));
          if (rep >= 3) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        std::vector<Record> host(ctas);
        CHECK(cudaMemcpy(host.data(), rec, ctas * sizeof(Record), cudaMemcpyDeviceToHost));
        unsigned long long t0 = host[0].start;
        for (const Record& r : host) t0 = std::min(t0, r.start);
        std::printf("# grid head_dim %d batch %d kv_heads %d keys %d fma %d ctas %d median %.2f us\n", s.head_dim, b,
                    s.kv_heads, s.keys, fma, ctas, 1e3 * ms[ms.size() / 2]);
        for (int i = 0; i < ctas; ++i)
          std::printf("%d,%d,%d,%d,%d,%d,%d,%u,%llu,%llu\n", s.head_dim, b, s.kv_heads, s.keys, fma, ctas, i, host[i].sm,
                      host[i].start - t0, host[i].end - t0);
        CHECK(cudaFree(k));
        CHECK(cudaFree(v));
        CHECK(cudaFree(rec));
        CHECK(cudaFree(sink));
      }
  return 0;
}
