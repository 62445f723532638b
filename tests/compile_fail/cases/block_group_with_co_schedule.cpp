// A block group cannot also co-schedule tile blocks (both decide how blocks share hardware).
// expect: ct::block_group does not combine with ct::co_schedule
#include <ctile/ctile.hpp>
struct k {
  static constexpr ct::block_group block_group{1};
  static constexpr ct::co_schedule co_schedule{1, 2};
  CT_TILE void operator()(ct::out<float, ct::shape<1, 16>> y) const { y.store(ct::zeros<float, 1, 16>()); }
};
void f(ct::tensor<float>& t) { (void)ct::launch(k{}, t.partition(ct::shape<1, 16>{})); }
