// How a tensor-core fold's result leaves its instruction's register layout (tile/pipeline.hpp):
// through a shared-memory buffer, into the layout of the tile ct::pipelined returns.
#pragma once
#include <type_traits>
#include <utility>

#include "ctile/backend/exec.hpp"
#include "ctile/backend/layout.hpp"

namespace ct::detail {

// A tensor-core fold (wgmma's, mma.sync's) accumulates from zero in its instruction's register
// layout, and its result leaves through a shared-memory buffer of BN-float rows into the result
// tile's layout, with init added there (a zero init, the usual ct::zeros, adds nothing and costs
// only the vote that finds it zero).

// Where element (row, col) of an exchange buffer with rows of BN floats lies: unpadded, with
// the row's 16-byte units swizzled so that neither side's accesses conflict on banks. The
// accumulator's side (wgmma's and mma.sync's layouts alike) writes float2s of 8 rows x 8 columns a warp: the
// XOR with 2 * (row % 8) spreads the rows over all banks. The tile's side reads 8 consecutive floats a thread
// as two float4s, 8 threads of a row at a time (units 0, 2, .. 14): flipping the low bit of units 8-15 of
// every 16 puts those 8 threads' float4s on 8 different bank groups.
template <int BN>
CT_HD constexpr int exchange_offset(int row, int col) {
  static_assert(BN % 64 == 0, "ct::pipelined: the exchange swizzle needs rows of a multiple of 64 floats");
  const int unit = col / 4;
  return row * BN + 4 * (unit ^ (2 * (row % 8)) ^ ((unit / 8) % 2)) + col % 4;
}

// How the BM x BN result crosses the buffer: all at once (Rows = 0), or in passes of Rows rows
// where the buffer is smaller (it lies over the ring's stage that the tile block holds). A
// 32-row pass takes the same 8-row band of each warp's 16 rows of one 64-row half, so that
// every thread takes part in every pass; a 16-row pass (rows of 256 floats), that band of one
// pair of warps, which alone write it. Which of the accumulator's values go in which pass is
// known at compile time (a runtime test per value would keep the accumulator out of wgmma's
// pipeline, C7515), up to the pair of warps, tested once a pass: pair i of half h is in band
// (i / 2) % 2. On the tile's side, slot s of a blocked layout is in the same 8-row group, so
// the same pass, in every thread (checked).
template <int BN, int Rows>
struct exchange_plan {
  static_assert(Rows == 0 || Rows == 32 || Rows == 16, "ct::pipelined: exchange passes of 16 or 32 rows, or one");
  static constexpr int rows = Rows;
  template <int BM>
  static constexpr int passes = Rows == 0 ? 1 : BM / Rows;
  CT_HD static constexpr int pass(int row) {
    if constexpr (Rows == 32) return 2 * (row / 64) + (row / 8) % 2;
    else if constexpr (Rows == 16) return 4 * (row / 64) + 2 * ((row / 8) % 2) + (row % 64) / 32;
    else return 0;
  }
  // The pair of warps (threads 64 p .. 64 p + 63) that alone write pass p, added to the pass of
  // warp 0's values: 0 except for 16-row passes.
  CT_HD static constexpr int writer_pair(int p) { return Rows == 16 ? p % 2 : 0; }
  CT_HD static constexpr int offset(int row, int col) {
    if constexpr (Rows == 32) return exchange_offset<BN>((row % 64) / 16 * 8 + row % 8, col);
    else if constexpr (Rows == 16) return exchange_offset<BN>((row % 32) / 16 * 8 + row % 8, col);
    else return exchange_offset<BN>(row, col);
  }
};

// The row of slot s of tile X in thread t, and whether every slot's rows over the threads lie in
// one 8-row group (a blocked layout puts slot s of threads 0 .. n-1 in rising rows, so its first
// and last thread bound them): then a slot's pass is the same in every thread, and the
// exchanges ask it for thread 0, a plain function rather than a table, since with an unrolled
// loop's constant s it folds away, where a table would be read from memory.
template <class X>
CT_HD constexpr int slot_row(int s, int t = 0) {
  using S = typename X::shape_type;
  return int(backend::slot_coord<S, typename X::layout_type>(t, s)[S::rank - 2]);
}
template <class X, int Rows>
constexpr bool passes_are_fixed() {
  for (int s = 0; s < X::slots && Rows != 0; ++s)
    if (slot_row<X>(s) / 8 != slot_row<X>(s, X::layout_type::threads - 1) / 8) return false;
  return true;
}

// The exchange pass of slot s of tile X (the same in every thread: passes_are_fixed).
template <class Plan, class X>
CT_HD constexpr int slot_pass(int s) {
  return Plan::pass(slot_row<X>(s));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// f(std::integral_constant<int, i>{}) for i = 0 .. N-1.
template <int N, class F>
__device__ void for_each_index(F f) {
  [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }
  (std::make_integer_sequence<int, N>{});
}

// Whether any of x's values is other than +0.0 (bitwise: -0.0 and NaN count).
template <class X>
__device__ bool any_nonzero(const X& x) {
  bool any = false;
  CT_UNROLL
  for (int s = 0; s < X::slots; ++s) any = any || __float_as_uint(x.v[s]) != 0u;
  return any;
}

// Puts the accumulator's values of tile elements (row, col) and (row, col + 1) into `buf`.
template <class Plan>
__device__ void put_pair(float* buf, int row, int col, float first, float second) {
  *reinterpret_cast<float2*>(buf + Plan::offset(row, col)) = make_float2(first, second);
}

// The finished accumulator plus init, as a Result tile (8-element chunks), through `buf`:
// write_pass(std::integral_constant<int, p>) puts the accumulator's values of pass p into `buf`
// (put_pair). Begins with a barrier of the tile block: every warp's tensor-core work is done
// before `buf`, which lies over the ring, is written; and ends with one: `buf` is read out.
template <class Result, int BM, class Plan, class Acc, class WritePass>
__device__ __forceinline__ Result fold_result(WritePass write_pass, const Acc& init, float* buf) {
  constexpr int R = Result::shape_type::rank;
  using P = typename Result::layout_type;
  static_assert(P::vec == 8, "ct::pipelined: the result is laid out in 8-element chunks");
  static_assert(passes_are_fixed<Result, Plan::rows>(),
                "ct::pipelined: the result's layout spreads a slot over exchange passes");
  static_assert(passes_are_fixed<Acc, Plan::rows>(),
                "ct::pipelined: the initial accumulator's layout spreads a slot over exchange passes");
  const bool add_init = backend::block_any(any_nonzero(init));
  Result r;
  for_each_index<Plan::template passes<BM>>([&](auto pass) {
    constexpr int p = decltype(pass)::value;
    if constexpr (p > 0) backend::sync_block();  // the previous pass is read
    write_pass(pass);
    backend::sync_block();
    const int t = backend::thread_index_here();
    if (add_init) {
      CT_UNROLL
      for (int s = 0; s < Acc::slots; ++s) {
        if (slot_pass<Plan, Acc>(s) != p ||
            !backend::slot_canonical<typename Acc::shape_type, typename Acc::layout_type>(t, s))
          continue;
        const auto c = backend::slot_coord<typename Acc::shape_type, typename Acc::layout_type>(t, s);
        buf[Plan::offset(int(c[R - 2]), int(c[R - 1]))] += init.v[s];
      }
      backend::sync_block();
    }
    CT_UNROLL
    for (int k = 0; k < P::chunks_per_thread; ++k) {
      if (slot_pass<Plan, Result>(k * 8) != p) continue;
      const auto c = backend::slot_coord<typename Result::shape_type, P>(t, k * 8);
      const int row = int(c[R - 2]), col = int(c[R - 1]);
      const float4 lo = *reinterpret_cast<const float4*>(buf + Plan::offset(row, col));
      const float4 hi = *reinterpret_cast<const float4*>(buf + Plan::offset(row, col + 4));
      const float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
      CT_UNROLL
      for (int e = 0; e < 8; ++e) r.v[k * 8 + e] = v[e];
    }
  });
  backend::sync_block();  // read out
  return r;
}

#endif

}  // namespace ct::detail
