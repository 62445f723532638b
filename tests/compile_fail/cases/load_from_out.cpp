// Loading from an output view (another block may be writing it).
// expect: ct::out::load: an output view cannot be loaded from
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<float, ct::shape<8>> o) const { o.store(o.load()); }
};
void f(ct::tensor<float>& t) { (void)ct::launch(k{}, t.partition(ct::shape<8>{})); }
