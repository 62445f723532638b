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

// The first driver rule `b` breaks, or "" when it breaks none.
std::string box_problem(const tma_box& b) {
  const auto addr = reinterpret_cast<std::uintptr_t>(b.base);
  const index_t e = b.element_bytes;
  if (b.base == nullptr) return "no tensor data";
  if (e != 1 && e != 2 && e != 4 && e != 8) return "element size " + std::to_string(e) + " bytes; 1, 2, 4 or 8";
  if (addr % 16 != 0) return "the tensor's first element is not 16-byte aligned";
  if (b.rows < 1 || b.cols < 1 || b.rows > (index_t(1) << 32) || b.cols > (index_t(1) << 32))
    return "extents must be between 1 and 2^32";
  if ((b.row_stride * e) % 16 != 0)  // the driver checks it even for a single row
    return "the row stride (" + std::to_string(b.row_stride * e) + " bytes) is not a multiple of 16 bytes";
  if (b.row_stride * e >= (index_t(1) << 40)) return "the row stride is 2^40 bytes or more";
  if (b.row_stride < b.cols) return "rows overlap: the row stride is less than the row length";
  if (b.box_rows < 1 || b.box_rows > 256 || b.box_cols < 1 || b.box_cols > 256)
    return "box extents must be between 1 and 256";
  if ((b.box_cols * e) % 16 != 0)
    return "the box's row (" + std::to_string(b.box_cols * e) + " bytes) is not a multiple of 16 bytes";
  if (b.swizzle_128b && b.box_cols * e > 128)
    return "with the 128-byte swizzle the box's row is at most 128 bytes, not " + std::to_string(b.box_cols * e);
  if (b.batches < 1 || b.batches > (index_t(1) << 32)) return "the batch count must be between 1 and 2^32";
  if (b.batches > 1 && (b.batch_stride * e) % 16 != 0)
    return "the batch stride (" + std::to_string(b.batch_stride * e) + " bytes) is not a multiple of 16 bytes";
  if (b.batches > 1 && b.batch_stride * e >= (index_t(1) << 40)) return "the batch stride is 2^40 bytes or more";
  return "";
}

}  // namespace

std::string tma_problem(const tma_box& box) { return box_problem(box); }

std::optional<tma_box> tma_box_for_operand(const void* base, bool bf16, const index_t (&extent)[3],
                                           const index_t (&stride)[3], int box_extent) {
  constexpr index_t coordinate_limit = index_t(1) << 31;  // box coordinates are signed 32-bit
  const bool fits = stride[2] == 1 && stride[1] > 0 && (extent[0] == 1 || stride[0] > 0) &&
                    extent[0] < coordinate_limit && extent[1] < coordinate_limit && extent[2] < coordinate_limit;
  if (!fits) return std::nullopt;
  tma_box box;
  box.base = base;
  box.element_bytes = 2;
  box.type = bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  box.batches = extent[0], box.rows = extent[1], box.cols = extent[2];
  box.row_stride = stride[1];
  box.batch_stride = extent[0] > 1 ? stride[0] : extent[1] * stride[1];
  box.box_rows = box.box_cols = box_extent;
  if (!box_problem(box).empty()) return std::nullopt;
  return box;
}

CUtensorMap encode_tma(const tma_box& b) {
  const std::string problem = box_problem(b);
  require(problem.empty(), "ct: TMA box: " + problem);
  CUtensorMap map{};
  // Innermost first. A batched box is rank 3 with one batch per box; a single batch's stride
  // is never used, so any multiple of 16 bytes will do.
  const int rank = b.batches > 1 || b.batch_stride != 0 ? 3 : 2;
  const index_t batch_stride_bytes = b.batches > 1 ? b.batch_stride * b.element_bytes
                                                   : (b.rows * b.row_stride * b.element_bytes + 15) / 16 * 16;
  const cuuint64_t dims[3] = {cuuint64_t(b.cols), cuuint64_t(b.rows), cuuint64_t(b.batches)};
  const cuuint64_t strides[2] = {cuuint64_t(b.row_stride * b.element_bytes), cuuint64_t(batch_stride_bytes)};
  const cuuint32_t box[3] = {cuuint32_t(b.box_cols), cuuint32_t(b.box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r = encoder()(&map, b.type, cuuint32_t(rank), const_cast<void*>(b.base), dims, strides, box,
                               element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                               b.swizzle_128b ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  require(r == CUDA_SUCCESS, "ct: cuTensorMapEncodeTiled refused the box (CUresult " + std::to_string(int(r)) + ")");
  return map;
}

}  // namespace ct::detail
