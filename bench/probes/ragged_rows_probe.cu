// A probe, not ctile code: what row sums written in plain CUDA reach on rows that start off
// 16-byte boundaries (32767 x 8191 bf16) against aligned rows and a flat copy, to learn which
// load scheme ctile's backend should produce for such rows. Not built by CMake; results:
// bench/results/2026-12-07-h100.md. Build and run on a GPU machine:
//   nvcc -O3 -arch=sm_90a -std=c++20 bench/probes/ragged_rows_probe.cu -o ragged_rows_probe && ./ragged_rows_probe
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void fill(__nv_bfloat16* x, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u;
    h ^= h >> 13;
    x[i] = __float2bfloat16(float(h & 0xffff) / 65536.f - 0.5f);
  }
}

__global__ void copy16(const uint4* __restrict__ x, uint4* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) y[i] = x[i];
}

__device__ __forceinline__ float block_sum(float v, float* red) {
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  if (l == 0) red[w] = v;
  __syncthreads();
  float r = 0;
  if (threadIdx.x < 32) {
    r = l < blockDim.x / 32 ? red[l] : 0.f;
    for (int o = 16; o; o >>= 1) r += __shfl_xor_sync(~0u, r, o);
  }
  __syncthreads();
  return r;
}

__device__ __forceinline__ float sum8(uint4 b, long long first, long long lo, long long hi) {
  const __nv_bfloat16* e = reinterpret_cast<const __nv_bfloat16*>(&b);
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += (first + j >= lo && first + j < hi) ? __bfloat162float(e[j]) : 0.f;
  return s;
}

// A: one block of 256 per row (grid-stride over rows), the row's aligned 16-byte window, U
// blocks a thread in flight, elements outside the row masked by their flat index.
template <int U>
__global__ void __launch_bounds__(256) window_block(const __nv_bfloat16* __restrict__ x, float* y, int M, int N) {
  __shared__ float red[8];
  const uint4* base = reinterpret_cast<const uint4*>(x);
  for (int r = blockIdx.x; r < M; r += gridDim.x) {
    const long long lo = (long long)r * N, hi = lo + N;
    const long long b0 = lo / 8, b1 = (hi + 7) / 8;  // 16-byte blocks [b0, b1)
    float s = 0;
    for (long long b = b0 + threadIdx.x; b < b1; b += 256 * U) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = b + u * 256 < b1 ? __ldg(base + b + u * 256) : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int u = 0; u < U; ++u) s += sum8(v[u], (b + u * 256) * 8, lo, hi);
    }
    s = block_sum(s, red);
    if (threadIdx.x == 0) y[r] = s;
  }
}

// B: one warp per row (8 rows a block), the row's aligned window, U blocks a lane in flight.
template <int U>
__global__ void __launch_bounds__(256) window_warp(const __nv_bfloat16* __restrict__ x, float* y, int M, int N) {
  const uint4* base = reinterpret_cast<const uint4*>(x);
  const int lane = threadIdx.x % 32;
  for (int r = blockIdx.x * 8 + threadIdx.x / 32; r < M; r += gridDim.x * 8) {
    const long long lo = (long long)r * N, hi = lo + N;
    const long long b0 = lo / 8, b1 = (hi + 7) / 8;
    float s = 0;
    for (long long b = b0 + lane; b < b1; b += 32 * U) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = b + u * 32 < b1 ? __ldg(base + b + u * 32) : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int u = 0; u < U; ++u) s += sum8(v[u], (b + u * 32) * 8, lo, hi);
    }
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
    if (lane == 0) y[r] = s;
  }
}

// C: element loads (2 bytes), one block per row, U in flight: what a compiler without
// 16-byte divisibility emits.
template <int U>
__global__ void __launch_bounds__(256) scalar_block(const __nv_bfloat16* __restrict__ x, float* y, int M, int N) {
  __shared__ float red[8];
  for (int r = blockIdx.x; r < M; r += gridDim.x) {
    const __nv_bfloat16* row = x + (long long)r * N;
    float s = 0;
    for (int c = threadIdx.x; c < N; c += 256 * U) {
      float v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = c + u * 256 < N ? __bfloat162float(row[c + u * 256]) : 0.f;
#pragma unroll
      for (int u = 0; u < U; ++u) s += v[u];
    }
    s = block_sum(s, red);
    if (threadIdx.x == 0) y[r] = s;
  }
}

// D: chunks of 8 elements at the row's own offsets, each made from the two aligned blocks it
// straddles by funnel shifts (the shift is the row's, the same for all its chunks): what
// ctile's straddling load does, but with all U chunks' blocks loaded before any is made.
template <int U>
__global__ void __launch_bounds__(256) straddle_block(const __nv_bfloat16* __restrict__ x, float* y, int M, int N) {
  __shared__ float red[8];
  const uint4* base = reinterpret_cast<const uint4*>(x);
  const long long total_blocks = ((long long)M * N + 7) / 8;
  for (int r = blockIdx.x; r < M; r += gridDim.x) {
    const long long lo = (long long)r * N;
    const int sh = int(lo % 8) * 16;  // bits
    const long long b0 = lo / 8;
    const int chunks = (N + 7) / 8;
    float s = 0;
    for (int c = threadIdx.x; c < chunks; c += 256 * U) {
      uint4 a[U], b[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const long long k = b0 + c + u * 256;
        const bool in = c + u * 256 < chunks;
        a[u] = in ? __ldg(base + k) : make_uint4(0, 0, 0, 0);
        b[u] = in && k + 1 < total_blocks ? __ldg(base + k + 1) : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const uint32_t w[8] = {a[u].x, a[u].y, a[u].z, a[u].w, b[u].x, b[u].y, b[u].z, b[u].w};
        uint32_t o[4];
        const int q = sh / 32, f = sh % 32;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          uint32_t l0 = 0, l1 = 0;
#pragma unroll
          for (int t = 0; t < 4; ++t) if (q == t) { l0 = w[j + t]; l1 = w[j + t + 1]; }
          o[j] = __funnelshift_r(l0, l1, f);
        }
        const uint4 v = make_uint4(o[0], o[1], o[2], o[3]);
        const long long first = lo + (long long)(c + u * 256) * 8;
        s += sum8(v, first, lo, lo + N);
      }
    }
    s = block_sum(s, red);
    if (threadIdx.x == 0) y[r] = s;
  }
}

struct result { const char* name; float ms; };

template <class F>
float time_ms(F&& f, int reps = 15) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  f();
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t cap = 32768ull * 8192;
  __nv_bfloat16* x;
  uint4* z;
  float *y, *yref;
  CK(cudaMalloc(&x, cap * 2 + 64));
  CK(cudaMalloc(&z, cap * 2 + 64));
  CK(cudaMalloc(&y, 32768 * 4));
  CK(cudaMalloc(&yref, 32768 * 4));
  fill<<<1024, 256>>>(x, cap);
  CK(cudaDeviceSynchronize());
  const float copy = time_ms([&] { copy16<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(x), z, cap * 2 / 16); });
  const double copy_gbs = 2.0 * cap * 2 / copy / 1e6;
  printf("copy %.0f GB/s\n", copy_gbs);
  for (auto [M, N] : {std::pair{32768, 8192}, std::pair{32767, 8191}}) {
    const double bytes = double(M) * N * 2 + M * 4.0;
    scalar_block<8><<<M, 256>>>(x, yref, M, N);
    CK(cudaDeviceSynchronize());
    std::vector<float> ref(M), got(M);
    CK(cudaMemcpy(ref.data(), yref, M * 4, cudaMemcpyDeviceToHost));
    auto run = [&](const char* name, auto launch) {
      CK(cudaMemset(y, 0, M * 4));
      const float ms = time_ms(launch);
      CK(cudaMemcpy(got.data(), y, M * 4, cudaMemcpyDeviceToHost));
      double err = 0;
      for (int i = 0; i < M; ++i) err = std::max(err, double(std::abs(got[i] - ref[i])));
      const double gbs = bytes / ms / 1e6;
      printf("%dx%d %-22s %6.0f GB/s  %.2f of copy  maxerr %.2g\n", M, N, name, gbs, gbs / copy_gbs, err);
    };
    for (int g : {M, sms * 8, sms * 16}) {
      char nm[64];
      snprintf(nm, 64, "window_block<4> g%d", g);
      run(nm, [&] { window_block<4><<<g, 256>>>(x, y, M, N); });
      snprintf(nm, 64, "window_block<2> g%d", g);
      run(nm, [&] { window_block<2><<<g, 256>>>(x, y, M, N); });
      snprintf(nm, 64, "straddle_block<4> g%d", g);
      run(nm, [&] { straddle_block<4><<<g, 256>>>(x, y, M, N); });
      snprintf(nm, 64, "straddle_block<2> g%d", g);
      run(nm, [&] { straddle_block<2><<<g, 256>>>(x, y, M, N); });
      snprintf(nm, 64, "scalar_block<8> g%d", g);
      run(nm, [&] { scalar_block<8><<<g, 256>>>(x, y, M, N); });
    }
    for (int u : {4, 8}) {
      const int g = (M + 7) / 8;
      if (u == 4) run("window_warp<4>", [&] { window_warp<4><<<g, 256>>>(x, y, M, N); });
      else run("window_warp<8>", [&] { window_warp<8><<<g, 256>>>(x, y, M, N); });
    }
  }
  return 0;
}
