// Example 8: an embedding layer, forward and backward: a gather and a scatter.
//   forward:  out[t, :] = table[ids[t], :]                       ct::gather
//   backward: grad_table[ids[t], :] += grad_out[t, :]            ct::atomic_add (ids may repeat)
// The backward kernel writes rows chosen by data, not its own tile, so it takes the table as a
// ct::unsafe::global, the spelled-out opt-out. Out-of-range ids read zeros and write nothing.
#pragma once
#include <ctile/ctile.hpp>

namespace examples {

template <class T, int BT, int BD>
struct embedding_forward {
  static constexpr const char* name = "embedding_forward";
  CT_TILE void operator()(ct::out<T, ct::shape<BT, BD>> out, ct::in<T, 2> table, ct::in<int, 1> ids) const {
    const auto [t, d] = out.tile_index();
    const auto rows = ct::reshape(ct::load(ids, {t}, ct::shape<BT>{}), ct::shape<BT, 1>{});
    const auto cols = ct::arange<int, BD>() + int(d * BD);
    out.store(ct::gather(table, ct::indices(rows, cols)));
  }
};

template <int BT, int BD>
struct embedding_backward {
  static constexpr const char* name = "embedding_backward";
  CT_TILE void operator()(ct::unsafe::global<float, 2> grad_table, ct::in<float, 2> grad_out,
                          ct::in<int, 1> ids) const {
    const int t = ct::bid(0), d = ct::bid(1);
    const auto token = ct::reshape(ct::arange<int, BT>() + t * BT, ct::shape<BT, 1>{});
    const auto rows = ct::reshape(ct::load(ids, {t}, ct::shape<BT>{}), ct::shape<BT, 1>{});
    const auto cols = ct::arange<int, BD>() + d * BD;
    const auto g = ct::load(grad_out, {t, d}, ct::shape<BT, BD>{});
    (void)ct::atomic_add(grad_table, ct::indices(rows, cols), g, token < int(ids.extent(0)), ct::relaxed);
  }
};

template <class T>
ct::pending embedding_forward_rows(ct::tensor<T>& out, const ct::tensor<T>& table, const ct::tensor<int>& ids) {
  return ct::launch(embedding_forward<T, 16, 128>{}, out.partition(ct::shape<16, 128>{}), table, ids);
}

// grad_table must hold zeros (or the gradient to accumulate into).
inline ct::pending embedding_backward_rows(ct::tensor<float>& grad_table, const ct::tensor<float>& grad_out,
                                           const ct::tensor<int>& ids) {
  const auto g = ct::grid((ids.extent(0) + 15) / 16, (grad_out.extent(1) + 127) / 128);
  return ct::launch(g, embedding_backward<16, 128>{}, ct::unsafe::shared(grad_table), grad_out, ids);
}

}  // namespace examples
