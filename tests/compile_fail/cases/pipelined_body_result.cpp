// A ct::pipelined body that returns something other than the new accumulator.
// expect: ct::pipelined: the body must return the new accumulator
#include <ctile/ctile.hpp>
struct a_at {
  CT_HD ct::coord<2> operator()(const ct::coord<2>& t, ct::index_t k) const { return {{t[0], k}}; }
};
CT_HD void f(ct::in<float, 2> a) {
  const auto ta = a.tiled(ct::shape<16, 16>{});
  (void)ct::pipelined(ct::coord<2>{}, 4, ct::stages(ct::stage(ta, a_at{})), ct::zeros<float, 16, 16>(),
                      [](auto, auto sa) { return sa; });
}
