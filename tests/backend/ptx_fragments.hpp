// The warp-wide sm_80 tensor-core instructions emulated on the host by the PTX ISA's rules, for
// tests that replay a device geometry lane by lane (mma_tile_test, mma_sync_fold_test):
// - ldmatrix .x{1,2,4}: lanes 8j .. 8j + 7 give the row addresses of 8 x 8 matrix j; register j
//   of lane l receives row l / 4, elements 2 (l % 4) and + 1 of matrix j; with .trans, column
//   l / 4, elements 2 (l % 4) and + 1 (the matrix transposed);
// - mma.m16n8k16: the fragments by mma_sync.hpp's layouts (which tests/gpu/sm80_mma_test.cu
//   checks on the GPU), d += a @ b.
#pragma once
#include <functional>
#include <limits>

#include "ctile/backend/sm80/mma_sync.hpp"

namespace ct_test {

// One warp's registers: [lane][register][half] of 16-bit values (as doubles).
template <int Registers>
using warp_registers = double[32][Registers][2];

// ldmatrix of `Matrices` 8 x 8 matrices: address[l] is the element offset lane l gives, and
// `element(offset)` reads shared memory there.
template <int Matrices>
void ldmatrix(const std::function<double(int)>& element, const int (&address)[32], bool trans,
              warp_registers<Matrices>& reg) {
  for (int l = 0; l < 32; ++l)
    for (int j = 0; j < Matrices; ++j)
      for (int h = 0; h < 2; ++h) {
        const int row = trans ? 2 * (l % 4) + h : l / 4, col = trans ? l / 4 : 2 * (l % 4) + h;
        reg[l][j][h] = element(address[8 * j + row] + col);
      }
}

// d[l][i] += (a @ b)[mma_c_row(l, i)][mma_c_col(l, i)] for a warp's A fragment (4 registers a
// lane), B fragment (2) and f32 accumulator (4).
inline void mma_m16n8k16(const warp_registers<4>& a, const warp_registers<2>& b, double (&d)[32][4]) {
  namespace sm80 = ct::backend::sm80;
  double fa[16][16], fb[16][8];
  for (auto& row : fa)  // a gap in the fragment layouts shows as NaN in the products
    for (double& x : row) x = std::numeric_limits<double>::quiet_NaN();
  for (auto& row : fb)
    for (double& x : row) x = std::numeric_limits<double>::quiet_NaN();
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 8; ++i) {
      fa[sm80::mma_a_row(l, i)][sm80::mma_a_col(l, i)] = a[l][i / 2][i % 2];
      if (i < 4) fb[sm80::mma_b_row(l, i)][sm80::mma_b_col(l, i)] = b[l][i / 2][i % 2];
    }
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 16; ++k) d[l][i] += fa[sm80::mma_c_row(l, i)][k] * fb[k][sm80::mma_c_col(l, i)];
}

}  // namespace ct_test
