// A probe, not ctile code: an RMS norm (y = x * rsqrt(mean(x^2) + eps) * w) written in plain
// CUDA over rows that start off 16-byte boundaries (32767 x 8191 bf16), one 256-thread block a
// row, four 16-byte chunks a thread, to learn how the backend should move such rows:
//   straddle: each chunk from the two aligned blocks it straddles; stores as 2-5 pieces chosen
//             for each byte offset (backend/straddle.hpp's scheme)
//   warps:    each lane reads the block its chunk starts in and takes the next from the lane
//             above by shuffles; stores the block its chunk ends in, made with the next lane's
//             chunk; lanes 0 and 31 write their shares of the blocks at warp edges element by
//             element (backend/warp_rows.hpp's scheme)
//   window:   the row's aligned window (x and y share the offset): aligned loads and stores,
//             only the edge blocks element by element, w shifted by shuffles (the upper bound)
// Known defects, left as measured (bench/results/2026-12-07-h100-b.md): at 8191 columns the
// window variant covers 1024 chunks where a row off the boundary needs 1025, and the warps
// variant's results are wrong too (its maxerr says so); only their speeds were used.
// Not built by CMake; results: bench/results/. Build and run on a GPU machine:
//   nvcc -O3 -arch=sm_90a -std=c++20 bench/probes/ragged_norm_probe.cu -o ragged_norm_probe && ./ragged_norm_probe
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

using bf = __nv_bfloat16;
constexpr int K = 4;  // chunks a thread

__global__ void fill(bf* x, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = (uint32_t(i) ^ seed) * 2654435761u;
    h ^= h >> 13;
    x[i] = __float2bfloat16(float(h & 0xffff) / 65536.f - 0.5f);
  }
}

__global__ void copy16(const uint4* __restrict__ x, uint4* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) y[i] = x[i];
}

__device__ __forceinline__ float block_sum(float v) {
  __shared__ float red[8];
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  if (l == 0) red[w] = v;
  __syncthreads();
  float r = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) r += red[i];
  __syncthreads();
  return r;
}

// The 16 bytes at byte `shift` (0..15) of (lo, hi).
__device__ __forceinline__ uint4 extract(uint4 lo, uint4 hi, unsigned shift) {
  uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
  for (int i = 0; i < 6; ++i) w[i] = (shift & 8) ? w[i + 2] : w[i];
#pragma unroll
  for (int i = 0; i < 5; ++i) w[i] = (shift & 4) ? w[i + 1] : w[i];
  const unsigned b = (shift & 3) * 8;
  return make_uint4(__funnelshift_r(w[0], w[1], b), __funnelshift_r(w[1], w[2], b), __funnelshift_r(w[2], w[3], b),
                    __funnelshift_r(w[3], w[4], b));
}

__device__ __forceinline__ uint4 shfl_down1(uint4 v) {
  return make_uint4(__shfl_down_sync(~0u, v.x, 1), __shfl_down_sync(~0u, v.y, 1), __shfl_down_sync(~0u, v.z, 1),
                    __shfl_down_sync(~0u, v.w, 1));
}

__device__ __forceinline__ void to_f(uint4 v, float (&f)[8]) {
  const bf* e = reinterpret_cast<const bf*>(&v);
#pragma unroll
  for (int j = 0; j < 8; ++j) f[j] = __bfloat162float(e[j]);
}
__device__ __forceinline__ uint4 from_f(const float (&f)[8]) {
  uint4 v;
  bf* e = reinterpret_cast<bf*>(&v);
#pragma unroll
  for (int j = 0; j < 8; ++j) e[j] = __float2bfloat16(f[j]);
  return v;
}

// Elements [from, to) of the aligned block b, whose contents are v.
__device__ __forceinline__ void store_elems(bf* b, uint4 v, int from, int to) {
  const bf* e = reinterpret_cast<const bf*>(&v);
#pragma unroll
  for (int j = 0; j < 8; ++j)
    if (j >= from && j < to) b[j] = e[j];
}

template <int Shift>
__device__ __forceinline__ void store_at_shift(unsigned char* block, const unsigned (&x)[4]) {
  constexpr int words = Shift / 4, bits = 8 * (Shift % 4);
  unsigned d[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int j = i - words;
    const unsigned hi = (j >= 0 && j < 4) ? x[j] : 0u, lo = (j >= 1 && j <= 4) ? x[j - 1] : 0u;
    d[i] = __funnelshift_l(lo, hi, bits);
  }
  // bytes [Shift, Shift + 16) as 2-byte-aligned pieces of up to 8 bytes
#pragma unroll
  for (int o = Shift; o < Shift + 16;) {
    const int size = (o % 8 == 0 && o + 8 <= Shift + 16) ? 8 : (o % 4 == 0 && o + 4 <= Shift + 16) ? 4 : 2;
    if (size == 8) *reinterpret_cast<uint2*>(block + o) = make_uint2(d[o / 4], d[o / 4 + 1]);
    else if (size == 4) *reinterpret_cast<unsigned*>(block + o) = d[o / 4];
    else *reinterpret_cast<unsigned short*>(block + o) = (unsigned short)(d[o / 4] >> (8 * (o % 4)));
    o += size;
  }
}

template <int... I>
__device__ __forceinline__ void store_straddling(bf* dst, uint4 v, std::integer_sequence<int, I...>) {
  const auto at = reinterpret_cast<uintptr_t>(dst);
  const unsigned x[4] = {v.x, v.y, v.z, v.w};
  unsigned char* block = reinterpret_cast<unsigned char*>(at & ~uintptr_t(15));
  const unsigned shift = unsigned(at & 15);
  (void)((shift == unsigned((I + 1) * 2) ? (store_at_shift<(I + 1) * 2>(block, x), true) : false) || ...);
}

enum { STRADDLE, WARPS, WINDOW };

template <int Mode>
__global__ void __launch_bounds__(256) rms(const bf* __restrict__ x, const bf* __restrict__ w, bf* __restrict__ y,
                                           int M, int N) {
  const int t = threadIdx.x, lane = t % 32;
  const long long lo = (long long)blockIdx.x * N;
  const unsigned off = unsigned(lo % 8) * 2;  // bytes
  float f[K][8];
  if constexpr (Mode == WINDOW) {
    // Window chunk c: elements [first + 8c, first + 8c + 8) of x flat, first = lo rounded down.
    const long long first = lo - off / 2;
    const int chunks = int((off / 2 + N + 7) / 8);
    const uint4* xb = reinterpret_cast<const uint4*>(x + first);
    uint4 v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int c = k * 256 + t;
      v[k] = c < chunks ? xb[c] : make_uint4(0, 0, 0, 0);
    }
    float ss = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      to_f(v[k], f[k]);
      const int c = k * 256 + t;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const int col = c * 8 + j - int(off / 2);
        if (col < 0 || col >= N) f[k][j] = 0.f;
        ss += f[k][j] * f[k][j];
      }
    }
    const float scale = rsqrtf(block_sum(ss) / N + 1e-6f);
    // w's element col sits at window position col + off/2: w's chunk for window chunk c is
    // w[8c - off/2 ...]: from w's aligned blocks c - 1 and c, shifted by 16 - off.
    const uint4* wb = reinterpret_cast<const uint4*>(w);
    const int wchunks = (N + 7) / 8;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int c = k * 256 + t;
      const uint4 cur = c < wchunks ? wb[c] : make_uint4(0, 0, 0, 0);
      uint4 prev = make_uint4(__shfl_up_sync(~0u, cur.x, 1), __shfl_up_sync(~0u, cur.y, 1), __shfl_up_sync(~0u, cur.z, 1),
                        __shfl_up_sync(~0u, cur.w, 1));
      if (lane == 0) prev = c >= 1 ? wb[c - 1] : make_uint4(0, 0, 0, 0);
      float wf[8];
      to_f(off ? extract(prev, cur, 16 - off) : cur, wf);
#pragma unroll
      for (int j = 0; j < 8; ++j) f[k][j] *= scale * wf[j];
    }
    bf* yb = y + first;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int c = k * 256 + t;
      if (c >= chunks) continue;
      const uint4 out = from_f(f[k]);
      const int from = c == 0 ? int(off / 2) : 0;
      const int to = min(8, int(off / 2) + N - c * 8);
      if (from == 0 && to == 8) reinterpret_cast<uint4*>(yb)[c] = out;
      else store_elems(yb + c * 8, out, from, to);
    }
  } else {
    const bf* xr = x + lo;
    const int chunks = (N + 7) / 8;
    uint4 own[K], above[K];
    int inside[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int c = k * 256 + t;
      inside[k] = min(8, N - c * 8);
      const bf* src = inside[k] > 0 ? xr + c * 8 : xr + N - 1;
      const auto at = reinterpret_cast<uintptr_t>(src);
      const uint4* b = reinterpret_cast<const uint4*>(at & ~uintptr_t(15));
      own[k] = b[0];
      const bool need = (at & 15) + unsigned(max(inside[k], 1)) * 2 > 16;
      if ((Mode == STRADDLE || lane == 31) && need) above[k] = b[1];
    }
    float ss = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      uint4 next = Mode == WARPS ? shfl_down1(own[k]) : above[k];
      if (Mode == WARPS && lane == 31) next = above[k];
      to_f(extract(own[k], next, off), f[k]);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        if (j >= inside[k]) f[k][j] = 0.f;
        ss += f[k][j] * f[k][j];
      }
    }
    const float scale = rsqrtf(block_sum(ss) / N + 1e-6f);
    const uint4* wb = reinterpret_cast<const uint4*>(w);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int c = k * 256 + t;
      const uint4 wv = c < chunks ? wb[c] : make_uint4(0, 0, 0, 0);
      float wf[8];
      to_f(wv, wf);
#pragma unroll
      for (int j = 0; j < 8; ++j) f[k][j] *= scale * wf[j];
    }
    bf* yr = y + lo;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int c = k * 256 + t;
      const uint4 mine = from_f(f[k]);
      if constexpr (Mode == STRADDLE) {
        if (inside[k] <= 0) continue;
        bf* dst = yr + c * 8;
        if (off == 0 && inside[k] == 8) *reinterpret_cast<uint4*>(dst) = mine;
        else if (inside[k] == 8) store_straddling(dst, mine, std::make_integer_sequence<int, 7>{});
        else
          for (int j = 0; j < inside[k]; ++j) dst[j] = reinterpret_cast<const bf*>(&mine)[j];
      } else {
        const uint4 next = shfl_down1(mine);
        if (inside[k] <= 0) continue;
        bf* dst = yr + c * 8;
        const auto at = reinterpret_cast<uintptr_t>(dst);
        const int o = int(at & 15) / 2;
        bf* block = reinterpret_cast<bf*>(at & ~uintptr_t(15));
        if (o == 0) {
          if (inside[k] == 8) *reinterpret_cast<uint4*>(dst) = mine;
          else store_elems(block, mine, 0, inside[k]);
          continue;
        }
        const uint4 tail = extract(mine, next, 16 - o * 2);
        const int after_inside = inside[k] - (8 - o);
        if (lane != 31 && after_inside >= 8) *reinterpret_cast<uint4*>(block + 8) = tail;
        else if (after_inside > 0) store_elems(block + 8, tail, 0, min(after_inside, lane == 31 ? o : 8));
        if (lane == 0) store_elems(block, extract(make_uint4(0, 0, 0, 0), mine, 16 - o * 2), o, min(o + inside[k], 8));
      }
    }
  }
}

template <class F>
float time_ms(F&& f, int reps = 20) {
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
  const size_t cap = 32768ull * 8192;
  bf *x, *y, *w;
  CK(cudaMalloc(&x, cap * 2));
  CK(cudaMalloc(&y, cap * 2));
  CK(cudaMalloc(&w, 8192 * 2));
  fill<<<1024, 256>>>(x, cap, 1);
  fill<<<8, 256>>>(w, 8192, 7);
  CK(cudaDeviceSynchronize());
  const float copy = time_ms([&] { copy16<<<132 * 8, 256>>>(reinterpret_cast<const uint4*>(x), reinterpret_cast<uint4*>(y), cap * 2 / 16); });
  const double copy_gbs = 2.0 * cap * 2 / copy / 1e6;
  printf("copy %.0f GB/s\n", copy_gbs);
  std::vector<bf> hx, hw(8192), hy;
  CK(cudaMemcpy(hw.data(), w, 8192 * 2, cudaMemcpyDeviceToHost));
  for (auto [M, N] : {std::pair{32768, 8192}, std::pair{32767, 8191}}) {
    const size_t n = size_t(M) * N;
    hx.resize(n);
    hy.resize(n);
    CK(cudaMemcpy(hx.data(), x, n * 2, cudaMemcpyDeviceToHost));
    const double bytes = 2.0 * n * 2;
    auto run = [&](const char* name, auto launch) {
      CK(cudaMemset(y, 0, cap * 2));
      const float ms = time_ms(launch);
      CK(cudaMemcpy(hy.data(), y, n * 2, cudaMemcpyDeviceToHost));
      double err = 0;
      for (int r = 0; r < M; r += 97) {  // every 97th row, against float64
        double ss = 0;
        for (int j = 0; j < N; ++j) ss += double(__bfloat162float(hx[size_t(r) * N + j])) * __bfloat162float(hx[size_t(r) * N + j]);
        const double s = 1.0 / std::sqrt(ss / N + 1e-6);
        for (int j = 0; j < N; ++j) {
          const double ref = __bfloat162float(hx[size_t(r) * N + j]) * s * __bfloat162float(hw[j]);
          err = std::max(err, std::abs(ref - double(__bfloat162float(hy[size_t(r) * N + j]))));
        }
      }
      // Rows' neighbours untouched: the element after the last row stays 0 (memset).
      bf after;
      CK(cudaMemcpy(&after, y + n, 2, cudaMemcpyDeviceToHost));
      const double gbs = bytes / ms / 1e6;
      printf("%dx%d %-10s %6.0f GB/s  %.2f of copy  maxerr %.3g  past-end %g\n", M, N, name, gbs, gbs / copy_gbs, err,
             double(__bfloat162float(after)));
    };
    run("straddle", [&] { rms<STRADDLE><<<M, 256>>>(x, w, y, M, N); });
    run("warps", [&] { rms<WARPS><<<M, 256>>>(x, w, y, M, N); });
    run("window", [&] { rms<WINDOW><<<M, 256>>>(x, w, y, M, N); });
    run("straddle", [&] { rms<STRADDLE><<<M, 256>>>(x, w, y, M, N); });
  }
  return 0;
}
