// Storing a 16-element tile into an 8-element output tile.
// expect: ct::out::store: the tile's shape differs from the output partition's tile shape
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<float, ct::shape<8>> o) const { o.store(ct::zeros<float, 16>()); }
};
void f(ct::tensor<float>& t) { (void)ct::launch(k{}, t.partition(ct::shape<8>{})); }
