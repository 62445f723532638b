// An output partition of rank 4 (the grid has three axes).
// expect: ct::out: output partitions have rank 1, 2 or 3
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<float, ct::shape<1, 1, 1, 8>> o) const { (void)o; }
};
