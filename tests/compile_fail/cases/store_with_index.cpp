// Storing through an output view at an index (another block's tile).
// expect: ct::out::store takes no index
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<float, ct::shape<8>> o) const { o.store(ct::coord<1>{{1}}, ct::zeros<float, 8>()); }
};
void f(ct::tensor<float>& t) { (void)ct::launch(k{}, t.partition(ct::shape<8>{})); }
