// Adding tiles whose shapes do not broadcast.
// expect: elementwise operand shapes do not broadcast
#include <ctile/ctile.hpp>
void f() { (void)(ct::zeros<float, 4, 8>() + ct::zeros<float, 4, 4>()); }
