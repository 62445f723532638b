// ct::detail::tma_box_for_operand: which 16-bit operands the sm_90a fold loads by TMA, the rule
// both the launch (backend/cuda/launch.hpp) and the GEMM's choice of configuration follow. Host
// logic only: nothing is encoded, no driver is needed.
#include <gtest/gtest.h>

#include <cstdint>

#include "ctile/runtime/tma.hpp"

namespace {

using ct::index_t;
using ct::detail::tma_box_for_operand;

// An address with the alignment a device allocation has; never dereferenced.
const void* const aligned_base = reinterpret_cast<const void*>(std::uintptr_t(1) << 20);

const void* offset_by_elements(index_t n) { return static_cast<const char*>(aligned_base) + 2 * n; }

TEST(tma_operand, a_contiguous_matrix_gets_its_box) {
  const index_t extent[3] = {1, 100, 200}, stride[3] = {20000, 200, 1};
  const auto box = tma_box_for_operand(aligned_base, true, extent, stride, 64);
  ASSERT_TRUE(box.has_value());
  EXPECT_EQ(box->base, aligned_base);
  EXPECT_EQ(box->type, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(box->batches, 1);
  EXPECT_EQ(box->rows, 100);
  EXPECT_EQ(box->cols, 200);
  EXPECT_EQ(box->row_stride, 200);
  EXPECT_EQ(box->batch_stride, 100 * 200);  // rank 3 even for one batch
  EXPECT_EQ(box->box_rows, 64);
  EXPECT_EQ(box->box_cols, 64);
  EXPECT_EQ(tma_box_for_operand(aligned_base, false, extent, stride, 64)->type, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
}

TEST(tma_operand, a_batch_keeps_its_stride) {
  const index_t extent[3] = {3, 64, 64}, stride[3] = {8192, 64, 1};
  const auto box = tma_box_for_operand(aligned_base, true, extent, stride, 64);
  ASSERT_TRUE(box.has_value());
  EXPECT_EQ(box->batches, 3);
  EXPECT_EQ(box->batch_stride, 8192);
}

// The GEMM's split-K views a [M, K] operand as [S, M, K / S]: the batch stride (K / S) below the
// row stride (K). TMA takes strides in any order, so the parts load by TMA too.
TEST(tma_operand, split_k_parts_keep_their_strides) {
  const index_t extent[3] = {8, 4096, 512}, stride[3] = {512, 4096, 1};
  const auto box = tma_box_for_operand(aligned_base, true, extent, stride, 64);
  ASSERT_TRUE(box.has_value());
  EXPECT_EQ(box->batches, 8);
  EXPECT_EQ(box->batch_stride, 512);
  EXPECT_EQ(box->row_stride, 4096);
  EXPECT_EQ(box->cols, 512);
  EXPECT_EQ(ct::detail::tma_problem(*box), "");
}

TEST(tma_operand, operands_tma_cannot_describe_get_none) {
  const auto none = [](const void* base, index_t b, index_t r, index_t c, index_t sb, index_t sr, index_t sc) {
    const index_t extent[3] = {b, r, c}, stride[3] = {sb, sr, sc};
    return !tma_box_for_operand(base, true, extent, stride, 64).has_value();
  };
  EXPECT_FALSE(none(aligned_base, 1, 64, 64, 4096, 64, 1)) << "the control case";
  EXPECT_TRUE(none(aligned_base, 1, 64, 64, 4096, 1, 64)) << "a transposed view: column stride 64";
  EXPECT_TRUE(none(aligned_base, 1, 64, 4093, 0, 4093, 1)) << "rows 8186 bytes apart";
  EXPECT_TRUE(none(offset_by_elements(1), 1, 64, 64, 4096, 64, 1)) << "a start off 16 bytes";
  EXPECT_TRUE(none(aligned_base, 1, 64, 64, 4096, 0, 1)) << "rows on top of each other";
  EXPECT_TRUE(none(aligned_base, 1, 64, 64, 4096, 32, 1)) << "rows overlapping";
  EXPECT_TRUE(none(aligned_base, 2, 64, 64, 4100, 64, 1)) << "batches 8200 bytes apart";
  EXPECT_TRUE(none(aligned_base, 2, 64, 64, 0, 64, 1)) << "a broadcast batch";
  EXPECT_TRUE(none(aligned_base, 1, index_t(1) << 31, 64, 0, 64, 1)) << "rows past 32-bit coordinates";
  EXPECT_FALSE(none(aligned_base, 1, (index_t(1) << 31) - 1, 64, 0, 64, 1)) << "rows just within them";
}

}  // namespace
