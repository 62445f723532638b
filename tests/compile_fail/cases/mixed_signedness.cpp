// int32 + uint32 without ct::astype.
// expect: elementwise operands have different element types
#include <ctile/ctile.hpp>
void f() { (void)(ct::zeros<int, 8>() * ct::zeros<unsigned, 8>()); }
