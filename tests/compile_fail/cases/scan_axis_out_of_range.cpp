// Cumsum of a rank-1 tile along axis 1.
// expect: ct scan: axis is out of range
#include <ctile/ctile.hpp>
void f() { (void)ct::cumsum(ct::zeros<float, 8>(), ct::axis<1>); }
