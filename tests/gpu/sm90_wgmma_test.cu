// The sm_90a wgmma building blocks (backend/sm90/wgmma.hpp), below the DSL: one warpgroup
// multiplies a 64x64 by a 64x64 (as [N][K]) bf16 tile from 128B-swizzled shared memory, four
// k16 steps with the descriptors advanced along K, and writes the f32 accumulator by the
// documented register layout. Small-integer inputs, so the product is exact and must equal the
// host's bit for bit. Host-only checks: the layout formulas are bijections.
#include <random>
#include <set>
#include <utility>

#include <ctile/backend/sm90/wgmma.hpp>

#include "common/test_util.hpp"

namespace {
namespace sm90 = ct::backend::sm90;

TEST(sm90_layouts, accumulator_layout_is_a_bijection_on_64x64) {
  std::set<std::pair<int, int>> seen;
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 32; ++i) {
      const int r = sm90::wgmma_acc_row(t, i), c = sm90::wgmma_acc_col(t, i);
      ASSERT_TRUE(r >= 0 && r < 64 && c >= 0 && c < 64) << t << " " << i;
      seen.insert({r, c});
    }
  EXPECT_EQ(seen.size(), 64u * 64u);
}

TEST(sm90_layouts, swizzle128_permutes_each_atom) {
  for (unsigned atom = 0; atom < 4; ++atom) {
    std::set<unsigned> seen;
    for (unsigned r = 0; r < 8; ++r)
      for (unsigned b = 0; b < 128; ++b) {
        const unsigned off = sm90::swizzle128_offset(atom * 8 + r, b);
        ASSERT_GE(off, atom * 1024);
        ASSERT_LT(off, atom * 1024 + 1024);
        seen.insert(off);
      }
    EXPECT_EQ(seen.size(), 1024u);
  }
  // Row 0 is not permuted; row 1 swaps neighbouring 16-byte pieces.
  EXPECT_EQ(sm90::swizzle128_offset(0, 37), 37u);
  EXPECT_EQ(sm90::swizzle128_offset(1, 0), 128u + 16u);
  EXPECT_EQ(sm90::swizzle128_offset(1, 16), 128u);
}

// d[m][n] = sum_k a[m][k] * b[n][k] for 64x64 row-major a and b; ran = 1 if the sm_90a path ran.
__global__ void wgmma_64x64x64(const ct::bf16* a, const ct::bf16* b, float* d, int* ran) {
#if CTILE_HAS_WGMMA
  __shared__ alignas(1024) unsigned char sa[64 * 128];
  __shared__ alignas(1024) unsigned char sb[64 * 128];
  for (int idx = int(threadIdx.x); idx < 64 * 64; idx += 128) {
    const unsigned r = unsigned(idx / 64), c = unsigned(idx % 64);
    memcpy(sa + sm90::swizzle128_offset(r, 2 * c), &a[idx], 2);
    memcpy(sb + sm90::swizzle128_offset(r, 2 * c), &b[idx], 2);
  }
  sm90::fence_proxy_async_shared();
  __syncthreads();
  float acc[32] = {};
  sm90::wgmma_fence();
  for (int k = 0; k < 4; ++k)  // 16 bf16 = 32 bytes further along K each step
    sm90::wgmma_m64n64k16_f32_bf16(acc, sm90::kmajor_b128_descriptor(sm90::smem_address(sa) + 32 * k),
                                   sm90::kmajor_b128_descriptor(sm90::smem_address(sb) + 32 * k), k > 0);
  sm90::wgmma_commit();
  sm90::wgmma_wait<0>();
  const int t = int(threadIdx.x);
  for (int i = 0; i < 32; ++i) d[sm90::wgmma_acc_row(t, i) * 64 + sm90::wgmma_acc_col(t, i)] = acc[i];
  if (t == 0) *ran = 1;
#else
  (void)a, (void)b, (void)d, (void)ran;
#endif
}

void check_cuda(cudaError_t e, const char* what) { ASSERT_EQ(e, cudaSuccess) << what << ": " << cudaGetErrorString(e); }

TEST(sm90_wgmma, m64n64k16_four_k_steps_exact) {
  if (ct::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  if (prop.major != 9) GTEST_SKIP() << "wgmma needs an sm_90 GPU, this is sm_" << prop.major << prop.minor;
  std::mt19937_64 rng(ct_test::fresh_seed());
  std::uniform_int_distribution<int> pick(-3, 3);
  std::vector<ct::bf16> a(64 * 64), b(64 * 64);
  for (auto& x : a) x = ct::convert<ct::bf16>(float(pick(rng)));
  for (auto& x : b) x = ct::convert<ct::bf16>(float(pick(rng)));
  ct::bf16 *da = nullptr, *db = nullptr;
  float* dd = nullptr;
  int* dran = nullptr;
  check_cuda(cudaMalloc(&da, a.size() * 2), "cudaMalloc");
  check_cuda(cudaMalloc(&db, b.size() * 2), "cudaMalloc");
  check_cuda(cudaMalloc(&dd, 64 * 64 * 4), "cudaMalloc");
  check_cuda(cudaMalloc(&dran, 4), "cudaMalloc");
  check_cuda(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice), "copy a");
  check_cuda(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice), "copy b");
  check_cuda(cudaMemset(dd, 0xff, 64 * 64 * 4), "poison d");  // NaN everywhere
  check_cuda(cudaMemset(dran, 0, 4), "clear ran");
  wgmma_64x64x64<<<1, 128>>>(da, db, dd, dran);
  check_cuda(cudaGetLastError(), "launch");
  check_cuda(cudaDeviceSynchronize(), "kernel");
  std::vector<float> d(64 * 64);
  int ran = 0;
  check_cuda(cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost), "copy d");
  check_cuda(cudaMemcpy(&ran, dran, 4, cudaMemcpyDeviceToHost), "copy ran");
  cudaFree(da), cudaFree(db), cudaFree(dd), cudaFree(dran);
  if (!ran) GTEST_SKIP() << "this binary has no sm_90a code (build with CUDA architecture 90a)";
  std::vector<double> got(d.begin(), d.end()), want(64 * 64);
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 64; ++n) {
      double s = 0;
      for (int k = 0; k < 64; ++k) s += ct_test::to_f64(a[m * 64 + k]) * ct_test::to_f64(b[n * 64 + k]);
      want[std::size_t(m * 64 + n)] = s;
    }
  EXPECT_TRUE(ct_test::all_equal(got, want));
}

}  // namespace
