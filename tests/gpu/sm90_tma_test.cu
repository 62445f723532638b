// The sm_90a TMA building blocks (runtime/tma.hpp, backend/sm90/tma.hpp), below the DSL: a
// 64 x 64 bf16 box loaded with the 128-byte swizzle must put element (r, c) at the byte the
// swizzle formula names; a box over the tensor's edge must land as zeros there; one barrier
// serves two loads in two phases. Host-only: boxes the driver would refuse are refused first,
// with a message naming the rule.
#include <cstring>

#include <ctile/backend/sm90/tma.hpp>
#include <ctile/runtime/tma.hpp>

#include "common/test_util.hpp"

namespace {
namespace sm90 = ct::backend::sm90;
using ct_test::HasSubstr;
using ct_test::ThrowsMessage;

ct::detail::tma_box box_of(const void* base, ct::index_t rows, ct::index_t cols, ct::index_t stride) {
  ct::detail::tma_box b;
  b.base = base;
  b.rows = rows, b.cols = cols, b.row_stride = stride;
  b.box_rows = 64, b.box_cols = 64;
  return b;
}

TEST(sm90_tma, boxes_the_driver_would_refuse_are_refused_first) {
  alignas(16) static unsigned char memory[64];
  const auto misaligned = box_of(memory + 2, 100, 200, 200);
  EXPECT_THAT([&] { (void)ct::detail::encode_tma(misaligned); }, ThrowsMessage<ct::error>(HasSubstr("16-byte aligned")));
  const auto odd_stride = box_of(memory, 100, 201, 201);
  EXPECT_THAT([&] { (void)ct::detail::encode_tma(odd_stride); },
              ThrowsMessage<ct::error>(HasSubstr("row stride (402 bytes) is not a multiple of 16")));
  auto wide = box_of(memory, 100, 200, 200);
  wide.box_cols = 128;
  EXPECT_THAT([&] { (void)ct::detail::encode_tma(wide); }, ThrowsMessage<ct::error>(HasSubstr("at most 128 bytes")));
  auto big_box = box_of(memory, 100, 200, 200);
  big_box.box_rows = 512;
  EXPECT_THAT([&] { (void)ct::detail::encode_tma(big_box); }, ThrowsMessage<ct::error>(HasSubstr("between 1 and 256")));
  // The driver checks every stride, even that of a single row (the GEMM's 1 x 1 dummy operands).
  const auto one_odd_row = box_of(memory, 1, 3, 3);
  EXPECT_THAT(ct::detail::tma_problem(one_odd_row), HasSubstr("row stride (6 bytes) is not a multiple of 16"));
  auto odd_batches = box_of(memory, 100, 200, 200);
  odd_batches.batches = 3, odd_batches.batch_stride = 20001;
  EXPECT_THAT([&] { (void)ct::detail::encode_tma(odd_batches); },
              ThrowsMessage<ct::error>(HasSubstr("batch stride (40002 bytes) is not a multiple of 16")));
  EXPECT_EQ(ct::detail::tma_problem(box_of(memory, 100, 200, 200)), "");
}

// Loads the box at (col0, row0), then the one at (col1, row1), through one barrier; copies the
// raw shared memory of each to out[0..8191] and out[8192..16383]. ran = 1 on the sm_90a path.
__global__ void tma_two_boxes(const __grid_constant__ CUtensorMap map, int col0, int row0, int col1, int row1,
                              unsigned char* out, int* ran) {
#if CTILE_HAS_WGMMA
  __shared__ alignas(1024) unsigned char box[64 * 128];
  __shared__ alignas(8) std::uint64_t bar;
  const int t = int(threadIdx.x);
  if (t == 0) {
    sm90::mbarrier_init(&bar, 1);
    sm90::fence_barrier_init();
  }
  __syncthreads();
  const int cols[2] = {col0, col1}, rows[2] = {row0, row1};
  for (int phase = 0; phase < 2; ++phase) {
    if (t == 0) {
      sm90::mbarrier_arrive_expect_tx(&bar, sizeof box);
      sm90::tma_load_2d(box, &map, cols[phase], rows[phase], &bar);
    }
    sm90::mbarrier_wait(&bar, unsigned(phase));
    for (int i = t; i < int(sizeof box); i += int(blockDim.x)) out[phase * int(sizeof box) + i] = box[i];
    __syncthreads();  // every thread has read the box before the next load overwrites it
  }
  if (t == 0) *ran = 1;
#else
  (void)map, (void)col0, (void)row0, (void)col1, (void)row1, (void)out, (void)ran;
#endif
}

TEST(sm90_tma, swizzled_box_and_zero_filled_edge) {
  if (ct::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  if (prop.major != 9) GTEST_SKIP() << "TMA tests target sm_90, this is sm_" << prop.major << prop.minor;
  const ct::index_t rows = 100, cols = 200;
  const auto value = [](ct::index_t r, ct::index_t c) { return float((r * 200 + c) % 251 - 125); };  // exact in bf16
  std::vector<ct::bf16> host(std::size_t(rows * cols));
  for (ct::index_t r = 0; r < rows; ++r)
    for (ct::index_t c = 0; c < cols; ++c) host[std::size_t(r * cols + c)] = ct::convert<ct::bf16>(value(r, c));
  ct::bf16* data = nullptr;
  unsigned char* out = nullptr;
  int* ran = nullptr;
  ASSERT_EQ(cudaMalloc(&data, host.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, 2 * 8192), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&ran, 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(data, host.data(), host.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(out, 0xab, 2 * 8192), cudaSuccess);
  ASSERT_EQ(cudaMemset(ran, 0, 4), cudaSuccess);
  const CUtensorMap map = ct::detail::encode_tma(box_of(data, rows, cols, cols));
  const int boxes[2][2] = {{64, 0}, {192, 64}};  // (col, row): inside, then over both edges
  tma_two_boxes<<<1, 128>>>(map, boxes[0][0], boxes[0][1], boxes[1][0], boxes[1][1], out, ran);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned char> got(2 * 8192);
  int did_run = 0;
  ASSERT_EQ(cudaMemcpy(got.data(), out, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(&did_run, ran, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(data), cudaFree(out), cudaFree(ran);
  if (!did_run) GTEST_SKIP() << "this binary has no sm_90a code (build with CUDA architecture 90a)";
  for (int phase = 0; phase < 2; ++phase) {
    SCOPED_TRACE("box at col " + std::to_string(boxes[phase][0]) + ", row " + std::to_string(boxes[phase][1]));
    int bad = 0;
    for (unsigned r = 0; r < 64; ++r)
      for (unsigned c = 0; c < 64; ++c) {
        const ct::index_t gr = boxes[phase][1] + ct::index_t(r), gc = boxes[phase][0] + ct::index_t(c);
        const float want = gr < rows && gc < cols ? value(gr, gc) : 0.0f;
        ct::bf16 at;
        std::memcpy(&at, &got[std::size_t(phase * 8192) + sm90::swizzle128_offset(r, 2 * c)], 2);
        if (ct_test::to_f64(at) != double(want) && ++bad <= 5)
          ADD_FAILURE() << "element (" << r << ", " << c << "): got " << ct_test::to_f64(at) << ", expected " << want;
      }
    EXPECT_EQ(bad, 0);
  }
}

}  // namespace
