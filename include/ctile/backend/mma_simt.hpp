// The portable matrix multiply-accumulate: operands go through the shared-memory arena in chunks
// along K and every thread accumulates its own output elements in the accumulator's compute
// type. Correct on every backend and for every type pair; issue 6 brings the tensor-core paths.
#pragma once
#include "ctile/backend/exchange.hpp"

namespace ct::backend {

// acc[b, i, j] + sum_k a[b, i, k] * b[b, k, j] for rank-3 tiles (batch B; a rank-2 call is B=1).
// Products and sums are in `Acc` (the accumulator's compute type); the result is rounded to C.
template <class Acc, class C, class SC, class PC, class TA, class SA, class PA, class TB, class SB, class PB>
CT_HD tile<C, SC, PC> mma_simt(const tile<TA, SA, PA>& a, const tile<TB, SB, PB>& b, const tile<C, SC, PC>& acc) {
  constexpr int R = SC::rank;
  constexpr int M = SC::dim(R - 2), N = SC::dim(R - 1), K = SA::dim(R - 1);
  constexpr int B = R == 3 ? SC::dim(0) : 1;
  constexpr int BA = R == 3 ? SA::dim(0) : 1, BB = R == 3 ? SB::dim(0) : 1;  // 1 = broadcast
  // K chunk so that one chunk of a and of b fits the arena together.
  constexpr index_t per_k = index_t(M) * index_t(sizeof(TA)) + index_t(N) * index_t(sizeof(TB));
  constexpr int fit = int(index_t(config::arena_bytes) / per_k);
  static_assert(fit >= 1, "ct::mma: an M x 1 and 1 x N slice of the operands must fit the arena (CTILE_ARENA_BYTES)");
  constexpr int KC = fit < K ? (fit >= 64 ? 64 : fit >= 32 ? 32 : fit >= 16 ? 16 : fit >= 8 ? 8 : fit >= 4 ? 4 : fit >= 2 ? 2 : 1) : K;
  TA* buf_a = reinterpret_cast<TA*>(arena());
  TB* buf_b = reinterpret_cast<TB*>(arena() + index_t(M) * KC * index_t(sizeof(TA)));

  Acc sum[PC::slots];
  CT_UNROLL
  for (int s = 0; s < PC::slots; ++s) sum[s] = convert<Acc>(acc.v[s]);

  for (int batch = 0; batch < B; ++batch) {
    for (int k0 = 0; k0 < K; k0 += KC) {
      CT_UNROLL
      for (int s = 0; s < PA::slots; ++s) {
        if (!tile<TA, SA, PA>::canonical(s)) continue;
        const auto c = tile<TA, SA, PA>::coord_of(s);
        const int cb = R == 3 ? int(c[0]) : 0, k = int(c[R - 1]) - k0;
        if (cb == (BA == 1 ? 0 : batch) && k >= 0 && k < KC) buf_a[int(c[R - 2]) * KC + k] = a.v[s];
      }
      CT_UNROLL
      for (int s = 0; s < PB::slots; ++s) {
        if (!tile<TB, SB, PB>::canonical(s)) continue;
        const auto c = tile<TB, SB, PB>::coord_of(s);
        const int cb = R == 3 ? int(c[0]) : 0, k = int(c[R - 2]) - k0;
        if (cb == (BB == 1 ? 0 : batch) && k >= 0 && k < KC) buf_b[k * N + int(c[R - 1])] = b.v[s];
      }
      sync_block();
      CT_UNROLL
      for (int s = 0; s < PC::slots; ++s) {
        const auto c = tile<C, SC, PC>::coord_of(s);
        if ((R == 3 ? int(c[0]) : 0) != batch) continue;
        const int i = int(c[R - 2]), j = int(c[R - 1]);
        Acc t = sum[s];
        for (int k = 0; k < KC && k0 + k < K; ++k)
          t += convert<Acc>(buf_a[i * KC + k]) * convert<Acc>(buf_b[k * N + j]);
        sum[s] = t;
      }
      sync_block();
    }
  }
  tile<C, SC, PC> r;
  CT_UNROLL
  for (int s = 0; s < PC::slots; ++s) r.v[s] = convert<C>(sum[s]);
  return r;
}

}  // namespace ct::backend
