// A block group along a grid axis that does not exist.
// expect: ct::block_group: axis must be 0, 1 or 2
#include <ctile/ctile.hpp>
struct k {
  static constexpr ct::block_group block_group{3};
  CT_TILE void operator()(ct::out<float, ct::shape<1, 16>> y) const { y.store(ct::zeros<float, 1, 16>()); }
};
void f(ct::tensor<float>& t) { (void)ct::launch(k{}, t.partition(ct::shape<1, 16>{})); }
