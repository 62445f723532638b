// The sm_80 tensor-core building blocks (backend/sm80/mma_sync.hpp), below the DSL: one warp
// stages a 16 x 16 (A, row-major) and a 16 x 8 (B, [K][N]) bf16 tile in shared memory with
// cp.async, reads them into fragments with ldmatrix (B transposed on the way), multiplies with
// mma.sync m16n8k16 twice (d = a b + a b) and writes d by the documented layout. Small-integer
// inputs: the result must equal the host's exactly. Host-only: the fragment layouts cover each
// matrix exactly once.
#include <random>
#include <set>
#include <utility>

#include <ctile/backend/sm80/mma_sync.hpp>

#include "common/test_util.hpp"

namespace {
namespace sm80 = ct::backend::sm80;

template <class Row, class Col>
std::size_t covered(int regs, Row row, Col col) {
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < regs; ++i) seen.insert({row(lane, i), col(lane, i)});
  return seen.size();
}

TEST(sm80_layouts, fragments_cover_their_matrices) {
  EXPECT_EQ(covered(8, sm80::mma_a_row, sm80::mma_a_col), 16u * 16u);
  EXPECT_EQ(covered(4, sm80::mma_b_row, sm80::mma_b_col), 16u * 8u);
  EXPECT_EQ(covered(4, sm80::mma_c_row, sm80::mma_c_col), 16u * 8u);
}

__global__ void mma_16x8x16_twice(const ct::bf16* a, const ct::bf16* b, float* d, int* ran) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  __shared__ alignas(16) ct::bf16 sa[16 * 16];
  __shared__ alignas(16) ct::bf16 sb[16 * 8];
  const int lane = int(threadIdx.x);
  // A: 32 chunks of 16 bytes (one per lane); B: 16 chunks.
  sm80::cp_async_16(&sa[lane * 8], &a[lane * 8], 16);
  if (lane < 16) sm80::cp_async_16(&sb[lane * 8], &b[lane * 8], 16);
  sm80::cp_async_commit();
  sm80::cp_async_wait<0>();
  __syncwarp();
  std::uint32_t fa[4], fb[2];
  // Matrix j = lane / 8 of A: rows 8 (j % 2) + lane % 8, columns 8 (j / 2).
  sm80::ldmatrix_x4(fa, &sa[(lane % 8 + 8 * ((lane / 8) % 2)) * 16 + 8 * (lane / 16)]);
  // B's two 8 x 8 matrices are its K rows 0-7 and 8-15.
  sm80::ldmatrix_x2_trans(fb, &sb[(lane % 16) * 8]);
  float acc[4] = {};
  sm80::mma_m16n8k16_f32<ct::bf16>(acc, fa, fb);
  sm80::mma_m16n8k16_f32<ct::bf16>(acc, fa, fb);
  for (int i = 0; i < 4; ++i) d[sm80::mma_c_row(lane, i) * 8 + sm80::mma_c_col(lane, i)] = acc[i];
  if (lane == 0) *ran = 1;
#else
  (void)a, (void)b, (void)d, (void)ran;
#endif
}

TEST(sm80_mma, m16n8k16_from_ldmatrix_exact) {
  if (ct::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  std::mt19937_64 rng(ct_test::fresh_seed());
  std::uniform_int_distribution<int> pick(-4, 4);
  std::vector<ct::bf16> a(16 * 16), b(16 * 8);
  for (auto& x : a) x = ct::convert<ct::bf16>(float(pick(rng)));
  for (auto& x : b) x = ct::convert<ct::bf16>(float(pick(rng)));
  ct::bf16 *da = nullptr, *db = nullptr;
  float* dd = nullptr;
  int* dran = nullptr;
  ASSERT_EQ(cudaMalloc(&da, a.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&db, b.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dd, 16 * 8 * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dran, 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(dd, 0xff, 16 * 8 * 4), cudaSuccess);
  ASSERT_EQ(cudaMemset(dran, 0, 4), cudaSuccess);
  mma_16x8x16_twice<<<1, 32>>>(da, db, dd, dran);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> d(16 * 8);
  int ran = 0;
  ASSERT_EQ(cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(&ran, dran, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(da), cudaFree(db), cudaFree(dd), cudaFree(dran);
  if (!ran) GTEST_SKIP() << "this binary has no sm_80+ code for this GPU";
  std::vector<double> got(d.begin(), d.end()), want(16 * 8);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      double s = 0;
      for (int k = 0; k < 16; ++k) s += ct_test::to_f64(a[m * 16 + k]) * ct_test::to_f64(b[k * 8 + n]);
      want[std::size_t(m * 8 + n)] = 2 * s;
    }
  EXPECT_TRUE(ct_test::all_equal(got, want));
}

}  // namespace
