// Host side of the Hopper tensor memory accelerator: a CUtensorMap describing 2-D boxes of a
// matrix or of a batch of matrices, encoded through the driver's cuTensorMapEncodeTiled, which
// is found at run time (cudaGetDriverEntryPointByVersion), so nothing links libcuda. Every
// driver rule is checked first, so a tensor TMA cannot describe gets a ct::error naming the
// rule, not a launch failure.
//
// The launcher encodes one map per 16-bit input of a kernel with a ct::pipelined loop
// (backend/cuda/launch.hpp), which the sm_90a fold loads its operand tiles with.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <optional>
#include <string>

#include "ctile/core/shape.hpp"

namespace ct::detail {

struct tma_box {
  const void* base = nullptr;  // first element (device memory)
  int element_bytes = 2;       // 1, 2, 4 or 8
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  index_t rows = 0, cols = 0;  // the tensor's extents; cols has unit stride
  index_t row_stride = 0;      // in elements
  int box_rows = 0, box_cols = 0;
  bool swizzle_128b = true;    // the layout wgmma reads (backend/sm90/wgmma.hpp)
  // A stack of `batches` such matrices, batch_stride elements apart: the map is then rank 3
  // (coordinates col, row, batch) and a box holds one batch. batch_stride != 0 with one batch
  // also asks for rank 3, so that one device path serves batched and plain operands.
  index_t batches = 1;
  index_t batch_stride = 0;
};

// The first of the driver's rules `box` breaks, or an empty string: for callers that fall back
// to another path rather than fail.
std::string tma_problem(const tma_box& box);

// The box with which the sm_90a fold loads a 16-bit operand of extents [batches, rows, cols] and
// strides `stride` (in elements), box_extent x box_extent elements at a time, or nullopt where
// TMA cannot describe the operand: a column stride other than 1, a row or batch stride that is
// not positive, an extent past the boxes' signed 32-bit coordinates, or any rule tma_problem
// names. The launch encodes its maps from it, and the GEMM's choice of configuration asks it.
std::optional<tma_box> tma_box_for_operand(const void* base, bool bf16, const index_t (&extent)[3],
                                           const index_t (&stride)[3], int box_extent);

// Checks `box` against the driver's rules, then encodes it. Out-of-range box elements load as
// zero. Throws ct::error on a rule violation or when no CUDA driver is available.
CUtensorMap encode_tma(const tma_box& box);

}  // namespace ct::detail
