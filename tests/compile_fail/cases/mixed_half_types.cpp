// f16 + bf16 without ct::astype.
// expect: elementwise operands have different element types
#include <ctile/ctile.hpp>
CT_HD void f() { (void)(ct::zeros<ct::f16, 4, 4>() + ct::zeros<ct::bf16, 4, 4>()); }
