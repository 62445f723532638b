// A kernel's occupancy hint (CTAs per SM) outside cuTile's range 1 to 32.
// expect: a kernel's occupancy (CTAs per SM) must be 1 to 32
#include <ctile/ctile.hpp>
struct k {
  static constexpr int occupancy = 0;
  CT_TILE void operator()(ct::out<float, ct::shape<16>> y) const { y.store(ct::zeros<float, 16>()); }
};
void f(ct::tensor<float>& t) { (void)ct::launch(k{}, t.partition(ct::shape<16>{})); }
