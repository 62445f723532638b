// ct::mma with a [M, K] and b [K', N], K != K'.
// expect: ct::mma: inner dimensions differ
#include <ctile/ctile.hpp>
CT_HD void f() { (void)ct::mma(ct::zeros<ct::bf16, 16, 32>(), ct::zeros<ct::bf16, 16, 16>(), ct::zeros<float, 16, 16>()); }
