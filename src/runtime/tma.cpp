// cuTensorMapEncodeTiled through the runtime's driver entry point: see runtime/tma.hpp.
#include "ctile/runtime/tma.hpp"

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <string>

#include "ctile/core/error.hpp"

namespace ct::detail {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found);
    if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || p == nullptr)
      fail(std::string("ct: TMA needs the CUDA driver's cuTensorMapEncodeTiled, which was not found (") +
           cudaGetErrorString(e) + ")");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

void check_box(const tma_box_2d& b) {
  const std::string what = "ct: TMA box: ";
  const auto addr = reinterpret_cast<std::uintptr_t>(b.base);
  const index_t e = b.element_bytes;
  require(b.base != nullptr, what + "no tensor data");
  require(e == 1 || e == 2 || e == 4 || e == 8, what + "element size " + std::to_string(e) + " bytes; 1, 2, 4 or 8");
  require(addr % 16 == 0, what + "the tensor's first element is not 16-byte aligned");
  require(b.rows >= 1 && b.cols >= 1 && b.rows <= (index_t(1) << 32) && b.cols <= (index_t(1) << 32),
          what + "extents must be between 1 and 2^32");
  require(b.rows == 1 || (b.row_stride * e) % 16 == 0,
          what + "the row stride (" + std::to_string(b.row_stride * e) + " bytes) is not a multiple of 16 bytes");
  require(b.row_stride * e < (index_t(1) << 40), what + "the row stride is 2^40 bytes or more");
  require(b.row_stride >= b.cols, what + "rows overlap: the row stride is less than the row length");
  require(b.box_rows >= 1 && b.box_rows <= 256 && b.box_cols >= 1 && b.box_cols <= 256,
          what + "box extents must be between 1 and 256");
  require((b.box_cols * e) % 16 == 0, what + "the box's row (" + std::to_string(b.box_cols * e) +
                                          " bytes) is not a multiple of 16 bytes");
  require(!b.swizzle_128b || b.box_cols * e <= 128,
          what + "with the 128-byte swizzle the box's row is at most 128 bytes, not " + std::to_string(b.box_cols * e));
}

}  // namespace

CUtensorMap encode_tma_2d(const tma_box_2d& b) {
  check_box(b);
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cuuint64_t(b.cols), cuuint64_t(b.rows)};  // innermost first
  const cuuint64_t strides[1] = {cuuint64_t(b.row_stride * b.element_bytes)};
  const cuuint32_t box[2] = {cuuint32_t(b.box_cols), cuuint32_t(b.box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encoder()(&map, b.type, 2, const_cast<void*>(b.base), dims, strides, box, element_strides,
                               CU_TENSOR_MAP_INTERLEAVE_NONE,
                               b.swizzle_128b ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  require(r == CUDA_SUCCESS, "ct: cuTensorMapEncodeTiled refused the box (CUresult " + std::to_string(int(r)) + ")");
  return map;
}

}  // namespace ct::detail
