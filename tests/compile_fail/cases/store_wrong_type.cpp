// Storing an f32 tile into a bf16 output without ct::astype.
// expect: ct::out::store: the tile's element type differs from the output's
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<ct::bf16, ct::shape<8>> o) const { o.store(ct::zeros<float, 8>()); }
};
void f(ct::tensor<ct::bf16>& t) { (void)ct::launch(k{}, t.partition(ct::shape<8>{})); }
