// What the tensor-core paths (sm80/mma_tile.hpp, sm90/wgmma_fold.hpp) ask of their operands:
// 16-bit floating-point inputs, and tiles of rank 2 or with a batch of one.
#pragma once
#include <type_traits>

#include "ctile/core/dtype.hpp"

namespace ct::backend {

template <class T>
inline constexpr bool tensor_core_16bit_v = std::is_same_v<T, bf16> || std::is_same_v<T, f16>;

template <class S>
constexpr bool unit_batch() {
  return S::rank == 2 || (S::rank == 3 && S::dim(0) == 1);
}

}  // namespace ct::backend
