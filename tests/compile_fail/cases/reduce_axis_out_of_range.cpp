// Sum a rank-2 tile along axis 2.
// expect: ct reduction: axis is out of range
#include <ctile/ctile.hpp>
void f() { (void)ct::sum(ct::zeros<float, 4, 8>(), ct::axis<2>); }
