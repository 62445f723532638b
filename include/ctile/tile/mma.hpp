// Matrix multiply: ct::mma(a, b, acc) = a @ b + acc, keeping acc's element type, and
// ct::matmul(a, b). Rank 2 ([M, K] x [K, N]) or rank 3 with a batch axis (extent B or 1, which
// broadcasts). The allowed operand -> accumulator types are cuTile's:
//   f16 -> f16 or f32    bf16 -> f32    f32 -> f32    f64 -> f64    tf32 -> f32
//   e4m3 / e5m2 -> f16 or f32           int8 / uint8 -> int32
// f32 operands use tf32 only when asked: convert them with ct::astype<ct::tf32>(x).
#pragma once
#include <cstdint>

#include "ctile/backend/mma_simt.hpp"
#include "ctile/backend/sm80/mma_tile.hpp"
#include "ctile/tile/cast.hpp"

namespace ct {

namespace detail {

template <class In, class Acc>
constexpr bool mma_types_allowed() {
  if constexpr (std::is_same_v<In, f16>) return std::is_same_v<Acc, f16> || std::is_same_v<Acc, float>;
  else if constexpr (std::is_same_v<In, bf16> || std::is_same_v<In, tf32> || std::is_same_v<In, float>)
    return std::is_same_v<Acc, float>;
  else if constexpr (std::is_same_v<In, double>) return std::is_same_v<Acc, double>;
  else if constexpr (std::is_same_v<In, e4m3> || std::is_same_v<In, e5m2>)
    return std::is_same_v<Acc, f16> || std::is_same_v<Acc, float>;
  else if constexpr (std::is_same_v<In, std::int8_t> || std::is_same_v<In, std::uint8_t>)
    return std::is_same_v<Acc, std::int32_t>;
  else return false;
}

// The accumulator type ct::matmul uses for operands of type In.
template <class In>
using matmul_acc_t = std::conditional_t<
    std::is_same_v<In, double>, double,
    std::conditional_t<std::is_same_v<In, std::int8_t> || std::is_same_v<In, std::uint8_t>, std::int32_t, float>>;

template <class SA, class SB, class SC>
constexpr bool mma_shapes_agree() {
  constexpr int R = SC::rank;
  if (SA::rank != R || SB::rank != R || (R != 2 && R != 3)) return false;
  if (SA::dim(R - 1) != SB::dim(R - 2)) return false;                            // K
  if (SA::dim(R - 2) != SC::dim(R - 2) || SB::dim(R - 1) != SC::dim(R - 1)) return false;  // M, N
  if (R == 3) {
    const int b = SC::dim(0);
    if ((SA::dim(0) != b && SA::dim(0) != 1) || (SB::dim(0) != b && SB::dim(0) != 1)) return false;
  }
  return true;
}

}  // namespace detail

template <class TA, class SA, class PA, class TB, class SB, class PB, class C, class SC, class PC>
CT_HD tile<C, SC, PC> mma(const tile<TA, SA, PA>& a, const tile<TB, SB, PB>& b, const tile<C, SC, PC>& acc) {
  static_assert(SA::rank == SC::rank && SB::rank == SC::rank && (SC::rank == 2 || SC::rank == 3),
                "ct::mma: a, b and acc must all be rank 2 ([M, K], [K, N], [M, N]) or all rank 3 (with a "
                "batch axis first)");
  static_assert(SA::dim(SA::rank - 1) == SB::dim(SB::rank - 2),
                "ct::mma: inner dimensions differ: a is [.., M, K] and b must be [.., K, N] with the same K");
  static_assert(detail::mma_shapes_agree<SA, SB, SC>(),
                "ct::mma: acc must be [.., M, N] for a [.., M, K] and b [.., K, N] (a batch extent may be 1)");
  static_assert(std::is_same_v<TA, TB>,
                "ct::mma: a and b have different element types; convert one with ct::astype first");
  static_assert(detail::mma_types_allowed<TA, C>(),
                "ct::mma: this operand -> accumulator type pair is not allowed; use f16 -> f16/f32, "
                "bf16 -> f32, f32 -> f32, f64 -> f64, tf32 -> f32, e4m3/e5m2 -> f16/f32, int8/uint8 -> int32");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (backend::sm80::mma_tile_eligible<TA, SA, PA, TB, SB, PB, C, SC>())
    return backend::sm80::mma_tile(a, b, acc);  // the tensor cores, by mma.sync
  else
#endif
    return backend::mma_simt<compute_t<C>>(a, b, acc);
}

// a @ b in the operands' type (accumulated in f32, f64 or int32 as ct::mma allows).
template <class T, class SA, class PA, class SB, class PB>
CT_HD auto matmul(const tile<T, SA, PA>& a, const tile<T, SB, PB>& b) {
  constexpr int R = SA::rank;
  static_assert(R == SB::rank && (R == 2 || R == 3), "ct::matmul: a and b must both be rank 2 or both rank 3");
  using Acc = detail::matmul_acc_t<T>;
  using SC = std::conditional_t<R == 2, shape<SA::dim(0), SB::dim(R - 1)>,
                                shape<(SA::dim(0) > SB::dim(0) ? SA::dim(0) : SB::dim(0)), SA::dim(R - 2), SB::dim(R - 1)>>;
  const auto acc = full<Acc>(SC{}, 0);
  const auto r = mma(a, b, acc);
  if constexpr (is_restricted_v<T>) return r;  // tf32 / fp8 products stay in the accumulator type
  else return astype<T>(r);
}

}  // namespace ct
