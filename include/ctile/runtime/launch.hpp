// ct::launch(kernel, args...): binds host arguments to the kernel's parameters, checks them,
// infers the grid from the output partitions, and enqueues the kernel on a stream.
//
// Binding rules (checked at compile time):
//   ct::out<T, S>  <- tensor.partition(ct::shape<...>{}) with the same T and S
//   ct::in<T, R>   <- a ct::tensor<T> (rank checked at launch)
//   scalar         <- an arithmetic value convertible to it
// Checked at launch, before any work, with a ct::error naming the kernel and argument: empty
// tensors, ranks, devices, partitions that imply different grids, grids over the device limit,
// an output sharing memory with any other argument, and tensors borrowed by pending launches.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ctile/backend/cpu/launch.hpp"
#include "ctile/backend/cuda/launch.hpp"
#include "ctile/runtime/create.hpp"
#include "ctile/runtime/kernel_traits.hpp"
#include "ctile/runtime/pending.hpp"
#include "ctile/runtime/tensor.hpp"
#include "ctile/tile/unsafe_view.hpp"
#include "ctile/tile/view.hpp"

namespace ct {

// An explicit launch grid, for kernels without an output partition (scatter, atomics). With
// output partitions too, the grid must equal theirs.
struct grid_t {
  index_t blocks[3] = {1, 1, 1};
};
inline grid_t grid(index_t x, index_t y = 1, index_t z = 1) { return grid_t{{x, y, z}}; }

// Preconditions a kernel declares on its tensor arguments' extents, checked at every launch:
//   static constexpr ct::precondition preconditions[] = {
//       ct::divisible(ct::extent_of(1, 1), 16),                // argument 1, axis 1
//       ct::equal(ct::extent_of(1, 1), ct::extent_of(2, 0))};  // a's K == b's K
struct extent_ref {
  int arg, axis;
};
constexpr extent_ref extent_of(int arg, int axis) { return {arg, axis}; }

struct precondition {
  enum class kind_t { divisible, at_least, at_most, equal } kind;
  extent_ref a;
  extent_ref b;
  index_t value;
};
constexpr precondition divisible(extent_ref a, index_t by) { return {precondition::kind_t::divisible, a, {}, by}; }
constexpr precondition at_least(extent_ref a, index_t n) { return {precondition::kind_t::at_least, a, {}, n}; }
constexpr precondition at_most(extent_ref a, index_t n) { return {precondition::kind_t::at_most, a, {}, n}; }
constexpr precondition equal(extent_ref a, extent_ref b) { return {precondition::kind_t::equal, a, b, 0}; }

namespace unsafe {
// Binds a tensor to a ct::unsafe::global parameter: every block may write anywhere in it.
template <class T>
struct shared_t {
  tensor<T>* t;
};
template <class T>
shared_t<T> shared(tensor<T>& t) {
  return {&t};
}
}  // namespace unsafe

namespace detail {

// One tensor argument as the launch checks see it.
struct tensor_use {
  int arg;
  bool writing;
  std::shared_ptr<storage> st;
  std::uintptr_t lo, hi;  // byte range [lo, hi) the view can reach
};

struct launch_plan {
  std::string kernel;
  ct::stream on;
  int grid[3] = {1, 1, 1};
  bool grid_set = false;
  int grid_arg = -1;
  std::vector<tensor_use> uses;
  std::vector<std::pair<int, extents_t>> arg_extents;  // for declared preconditions

  std::string where(int arg) const { return "kernel '" + kernel + "', argument " + std::to_string(arg); }
};

template <class T>
void note_tensor(launch_plan& plan, int arg, const tensor<T>& t, bool writing) {
  require(t.valid(), plan.where(arg) + ": the tensor is empty (default-constructed or moved from)");
  require(t.dev() == plan.on.dev(), plan.where(arg) + ": the tensor is on " + t.dev().name() +
                                        " but the launch runs on " + plan.on.dev().name() +
                                        "; move it with to_host/from_host first");
  plan.arg_extents.emplace_back(arg, t.extents());
  const auto [lo, hi] = byte_span(t);
  plan.uses.push_back(tensor_use{arg, writing, t.storage_ptr(), lo, hi});
}

template <int R, class T>
backend::global_view<R> global_of(const tensor<T>& t) {
  backend::global_view<R> g;
  for (int i = 0; i < R; ++i) {
    g.extent[i] = t.extent(i);
    g.stride[i] = t.stride(i);
  }
  return g;
}

template <class X>
struct is_partition : std::false_type {};
template <class T, class S>
struct is_partition<partition<T, S>> : std::true_type {};
template <class X>
struct is_tensor : std::false_type {};
template <class T>
struct is_tensor<tensor<T>> : std::true_type {};
template <class X>
struct is_shared : std::false_type {};
template <class T>
struct is_shared<unsafe::shared_t<T>> : std::true_type {};
template <class X>
inline constexpr bool is_argument_object_v = is_tensor<X>::value || is_partition<X>::value || is_shared<X>::value;

template <class Param>
struct param_kind {
  static constexpr int value = 0;  // scalar
};
template <class T, class S>
struct param_kind<out<T, S>> {
  static constexpr int value = 1;
};
template <class T, int R>
struct param_kind<in<T, R>> {
  static constexpr int value = 2;
};
template <class T, int R>
struct param_kind<unsafe::global<T, R>> {
  static constexpr int value = 3;
};

// Output partition -> ct::out.
template <class T, class S, class Arg>
out<T, S> bind(launch_plan& plan, int arg, const Arg& a, out<T, S>*) {
  static_assert(is_partition<Arg>::value,
                "ct::launch: the kernel expects an output partition (ct::out) here; pass "
                "tensor.partition(ct::shape<...>{}) instead of a tensor or scalar");
  if constexpr (is_partition<Arg>::value) {
    static_assert(std::is_same_v<Arg, partition<T, S>>,
                  "ct::launch: the output partition's element type or tile shape differs from the "
                  "kernel's ct::out<T, ct::shape<...>> parameter");
    tensor<T>& t = a.target();
    note_tensor(plan, arg, t, true);
    int grid[3] = {1, 1, 1};
    for (int i = 0; i < S::rank; ++i) {
      const index_t tiles = a.tiles(i);
      const index_t limit = i == 0 ? 2147483647 : 65535;
      require(tiles <= limit, plan.where(arg) + ": the partition has " + std::to_string(tiles) +
                                  " tiles along axis " + std::to_string(i) + ", over the limit of " +
                                  std::to_string(limit) + " blocks on that grid axis; use larger tiles");
      grid[i] = int(tiles);
    }
    if (!plan.grid_set) {
      std::copy(grid, grid + 3, plan.grid);
      plan.grid_set = true;
      plan.grid_arg = arg;
    } else {
      require(std::equal(grid, grid + 3, plan.grid),
              plan.where(arg) + ": this output partition implies a grid of " + std::to_string(grid[0]) +
                  "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]) + " blocks, but argument " +
                  std::to_string(plan.grid_arg) + " implies " + std::to_string(plan.grid[0]) + "x" +
                  std::to_string(plan.grid[1]) + "x" + std::to_string(plan.grid[2]));
    }
    return out<T, S>{t.data(), global_of<S::rank>(t)};
  }
}

// Input tensor -> ct::in.
template <class T, int R, class Arg>
in<T, R> bind(launch_plan& plan, int arg, const Arg& a, in<T, R>*) {
  static_assert(!is_partition<Arg>::value,
                "ct::launch: a partition binds only to a ct::out parameter; pass the tensor itself "
                "for a ct::in parameter");
  static_assert(is_tensor<Arg>::value, "ct::launch: the kernel expects an input tensor (ct::in) here");
  if constexpr (is_tensor<Arg>::value) {
    static_assert(std::is_same_v<Arg, tensor<T>>,
                  "ct::launch: the input tensor's element type differs from the kernel's ct::in<T, R> "
                  "parameter; convert it first");
    note_tensor(plan, arg, a, false);  // first: an empty tensor has no rank worth reporting
    require(a.rank() == R, plan.where(arg) + ": the kernel expects a rank-" + std::to_string(R) +
                               " tensor, got rank " + std::to_string(a.rank()) + " " +
                               format_extents(a.extents()));
    return in<T, R>{a.data(), global_of<R>(a)};
  }
}

// Input tensor -> ct::in_static: as ct::in, and the fixed extents must hold.
template <class T, class E, class Arg>
in_static<T, E> bind(launch_plan& plan, int arg, const Arg& a, in_static<T, E>*) {
  in_static<T, E> v{bind(plan, arg, a, static_cast<in<T, E::rank>*>(nullptr))};
  for (int i = 0; i < E::rank; ++i)
    require(E::value(i) == dyn || E::value(i) == a.extent(i),
            plan.where(arg) + ": extent " + std::to_string(i) + " is " + std::to_string(a.extent(i)) +
                " but the kernel's ct::in_static requires " + std::to_string(E::value(i)));
  return v;
}

// Shared writable tensor -> ct::unsafe::global.
template <class T, int R, class Arg>
unsafe::global<T, R> bind(launch_plan& plan, int arg, const Arg& a, unsafe::global<T, R>*) {
  static_assert(is_shared<Arg>::value,
                "ct::launch: the kernel expects a ct::unsafe::global here; pass ct::unsafe::shared(tensor) "
                "to opt out of the one-block-one-tile rule explicitly");
  if constexpr (is_shared<Arg>::value) {
    static_assert(std::is_same_v<Arg, unsafe::shared_t<T>>,
                  "ct::launch: the shared tensor's element type differs from the kernel's ct::unsafe::global<T, R>");
    tensor<T>& t = *a.t;
    require(t.valid(), plan.where(arg) + ": the tensor is empty (default-constructed or moved from)");
    require(t.rank() == R, plan.where(arg) + ": the kernel expects a rank-" + std::to_string(R) +
                               " tensor, got rank " + std::to_string(t.rank()) + " " + format_extents(t.extents()));
    note_tensor(plan, arg, t, true);
    return unsafe::global<T, R>{t.data(), global_of<R>(t)};
  }
}

// Scalar.
template <class P, class Arg>
P bind(launch_plan&, int, const Arg& a, P*) {
  static_assert(!is_argument_object_v<Arg>,
                "ct::launch: the kernel expects a scalar here, not a tensor or partition");
  static_assert(std::is_arithmetic_v<P>, "ct::launch: kernel parameters must be ct::out, ct::in or "
                                         "arithmetic scalars");
  if constexpr (!is_argument_object_v<Arg>) {
    static_assert(std::is_convertible_v<Arg, P>, "ct::launch: this argument does not convert to the "
                                                 "kernel's scalar parameter");
    return static_cast<P>(a);
  }
}

// Every output must be disjoint from every other argument's memory.
inline void check_aliasing(const launch_plan& plan) {
  for (const auto& w : plan.uses) {
    if (!w.writing) continue;
    for (const auto& o : plan.uses) {
      if (&o == &w || o.lo >= o.hi || w.lo >= w.hi) continue;
      if (w.lo < o.hi && o.lo < w.hi && (o.writing ? o.arg > w.arg : true))
        fail(plan.where(w.arg) + " is an output whose memory overlaps argument " + std::to_string(o.arg) +
             (o.writing ? " (another output)" : " (an input)") +
             "; an output must not share memory with any other argument of the same launch");
    }
  }
}

inline void apply_explicit_grid(launch_plan& plan, const grid_t* g) {
  if (!g) return;
  int want[3];
  for (int i = 0; i < 3; ++i) {
    const index_t limit = i == 0 ? 2147483647 : 65535;
    require(g->blocks[i] >= 0 && g->blocks[i] <= limit,
            "kernel '" + plan.kernel + "': grid axis " + std::to_string(i) + " has " + std::to_string(g->blocks[i]) +
                " blocks; the limit is 0 ... " + std::to_string(limit));
    want[i] = int(g->blocks[i]);
  }
  if (plan.grid_set)
    require(std::equal(want, want + 3, plan.grid),
            "kernel '" + plan.kernel + "': the explicit grid " + std::to_string(want[0]) + "x" + std::to_string(want[1]) +
                "x" + std::to_string(want[2]) + " differs from the grid of the output partition (argument " +
                std::to_string(plan.grid_arg) + ")");
  std::copy(want, want + 3, plan.grid);
  plan.grid_set = true;
}

template <class K, class = void>
struct has_preconditions : std::false_type {};
template <class K>
struct has_preconditions<K, std::void_t<decltype(K::preconditions)>> : std::true_type {};

inline index_t extent_for(const launch_plan& plan, const extent_ref& r) {
  for (const auto& [arg, ext] : plan.arg_extents)
    if (arg == r.arg) {
      require(r.axis >= 0 && r.axis < int(ext.size()),
              "kernel '" + plan.kernel + "': a precondition names axis " + std::to_string(r.axis) + " of argument " +
                  std::to_string(r.arg) + ", which has rank " + std::to_string(ext.size()));
      return ext[std::size_t(r.axis)];
    }
  fail("kernel '" + plan.kernel + "': a precondition names argument " + std::to_string(r.arg) +
       ", which is not a tensor argument");
}

// The kernel's declared preconditions (static constexpr ct::precondition preconditions[]).
template <class K>
void check_preconditions(const launch_plan& plan) {
  if constexpr (has_preconditions<K>::value) {
    for (const precondition& p : K::preconditions) {
      const index_t a = extent_for(plan, p.a);
      const std::string what = "extent " + std::to_string(p.a.axis) + " of argument " + std::to_string(p.a.arg) +
                               " (= " + std::to_string(a) + ")";
      switch (p.kind) {
        case precondition::kind_t::divisible:
          require(p.value > 0 && a % p.value == 0, "kernel '" + plan.kernel + "': precondition failed: " + what +
                                                       " must be divisible by " + std::to_string(p.value));
          break;
        case precondition::kind_t::at_least:
          require(a >= p.value, "kernel '" + plan.kernel + "': precondition failed: " + what + " must be at least " +
                                    std::to_string(p.value));
          break;
        case precondition::kind_t::at_most:
          require(a <= p.value, "kernel '" + plan.kernel + "': precondition failed: " + what + " must be at most " +
                                    std::to_string(p.value));
          break;
        case precondition::kind_t::equal: {
          const index_t b = extent_for(plan, p.b);
          require(a == b, "kernel '" + plan.kernel + "': precondition failed: " + what + " must equal extent " +
                              std::to_string(p.b.axis) + " of argument " + std::to_string(p.b.arg) + " (= " +
                              std::to_string(b) + ")");
          break;
        }
      }
    }
  }
}

// A kernel with a ct::block_group: its groups (the tile blocks along the group's axis) fit
// the largest group, on every backend, so that a program that runs on the CPU runs on a GPU.
template <class K>
void check_block_group(const launch_plan& plan) {
  constexpr int axis = kernel_group_axis<K>();
  if constexpr (axis >= 0) {
    static_assert(kernel_co_schedule<K>().blocks == 1 && kernel_co_schedule<K>().cluster == 1,
                  "ct::block_group does not combine with ct::co_schedule");
    static_assert(kernel_shared_bytes<K>() == 0, "ct::block_group does not combine with a ct::pipelined kernel's "
                                                 "shared_bytes (yet)");
    require(plan.grid[axis] <= max_block_group,
            "kernel '" + plan.kernel + "' groups its tile blocks along grid axis " + std::to_string(axis) +
                " (ct::block_group), which has " + std::to_string(plan.grid[axis]) + " of them; a group holds at most " +
                std::to_string(max_block_group) + ": use larger tiles along that axis");
  }
}

template <class K, class Params, class... A, std::size_t... I>
pending launch_impl(const stream& s, const grid_t* explicit_grid, const K& k, std::index_sequence<I...>,
                    const A&... args) {
  launch_plan plan{kernel_name<K>(), s, {1, 1, 1}, false, -1, {}, {}};
  // Bind in argument order (braced init guarantees left-to-right evaluation).
  std::tuple<std::tuple_element_t<I, Params>...> views{
      bind(plan, int(I), args, static_cast<std::tuple_element_t<I, Params>*>(nullptr))...};
  apply_explicit_grid(plan, explicit_grid);
  check_preconditions<K>(plan);
  check_block_group<K>(plan);
  check_aliasing(plan);
  for (const auto& u : plan.uses) u.st->prepare_bind(s, u.writing, plan.kernel);

  auto rec = std::make_shared<launch_record>(launch_record{plan.kernel, s, {}});
  if ((long long)plan.grid[0] * plan.grid[1] * plan.grid[2] > 0) {
    if (s.dev().is_cpu()) {
      std::vector<std::shared_ptr<void>> keep;
      for (const auto& u : plan.uses) keep.push_back(u.st);
      std::apply([&](const auto&... v) { backend::cpu::enqueue(s, k, plan.grid, std::move(keep), v...); },
                 views);
    } else {
#if defined(__CUDACC__)
      make_current(s.dev());  // the launch and the backend's attribute queries go to the stream's GPU
      std::apply([&](const auto&... v) { backend::cuda::enqueue(s, plan.kernel, k, plan.grid, v...); }, views);
#else
      fail("kernel '" + plan.kernel + "' was compiled without nvcc, so it runs only on the CPU device; "
           "compile its translation unit as CUDA to run it on " + s.dev().name());
#endif
    }
  }
  rec->done = s.record();
  for (const auto& u : plan.uses) u.st->record_use(rec, u.writing);
  return pending(std::move(rec));
}

template <class K, class... A>
constexpr bool check_launch_arity() {
  static_assert(std::tuple_size_v<kernel_params<K>> == sizeof...(A),
                "ct::launch: the number of arguments differs from the number of kernel parameters");
  return true;
}

template <class Params, std::size_t... I>
constexpr bool has_output(std::index_sequence<I...>) {
  return (false || ... || (param_kind<std::tuple_element_t<I, Params>>::value == 1));
}

}  // namespace detail

namespace detail {
template <class K, class... A>
pending launch_checked(const stream& s, const grid_t* g, const K& kernel, const A&... args) {
  static_assert(check_kernel_type<K>());
  static_assert(kernel_occupancy<K>() >= 0);  // checks the hint on every backend
  static_assert(check_launch_arity<K, A...>());
  using Params = kernel_params<K>;
  return launch_impl<K, Params>(s, g, kernel, std::index_sequence_for<A...>{}, args...);
}

// The device of the first tensor argument (default_device() if there is none).
template <class... A>
device device_of(const A&... args) {
  device dev = ct::default_device();
  bool found = false;
  auto pick = [&](const auto& a) {
    using X = std::remove_cvref_t<decltype(a)>;
    if (found) return;
    if constexpr (is_tensor<X>::value) {
      if (a.valid()) dev = a.dev(), found = true;
    } else if constexpr (is_partition<X>::value) {
      if (a.target().valid()) dev = a.target().dev(), found = true;
    } else if constexpr (is_shared<X>::value) {
      if (a.t->valid()) dev = a.t->dev(), found = true;
    }
  };
  (pick(args), ...);
  return dev;
}

template <class K>
constexpr bool check_has_output() {
  using Params = kernel_params<K>;
  static_assert(has_output<Params>(std::make_index_sequence<std::tuple_size_v<Params>>{}),
                "ct::launch: the kernel has no ct::out parameter, so the grid cannot be inferred; "
                "pass one explicitly: ct::launch(ct::grid(n), kernel, args...)");
  return true;
}
}  // namespace detail

// Launches `kernel` on stream `s`; the grid is the output partitions' tile counts.
template <class K, class... A, std::enable_if_t<!std::is_same_v<K, grid_t>, int> = 0>
pending launch(const stream& s, const K& kernel, const A&... args) {
  static_assert(detail::check_kernel_type<K>() && detail::check_has_output<K>());
  return detail::launch_checked(s, nullptr, kernel, args...);
}

// Launches `kernel` on stream `s` over an explicit grid.
template <class K, class... A>
pending launch(const stream& s, const grid_t& g, const K& kernel, const A&... args) {
  return detail::launch_checked(s, &g, kernel, args...);
}

// Launches on the default stream of the device its tensors live on.
template <class K, class... A,
          std::enable_if_t<!std::is_same_v<K, stream> && !std::is_same_v<K, grid_t>, int> = 0>
pending launch(const K& kernel, const A&... args) {
  return launch(default_stream(detail::device_of(args...)), kernel, args...);
}
template <class K, class... A>
pending launch(const grid_t& g, const K& kernel, const A&... args) {
  return launch(default_stream(detail::device_of(args...)), g, kernel, args...);
}

// Whether launches of `kernel` (one with a ct::block_group) run its groups on s's device: always
// on the CPU; on a GPU when it has thread-block clusters (compute capability 9.0 or later) and
// this program's device code for it was built for one (sm_90 or later, not an older
// architecture's PTX). A launch where they do not run fails with an error that says why; a
// caller with another way to do the work (kn::softmax) asks first.
template <class K>
bool block_groups_run(const stream& s, const K& kernel) {
  static_assert(detail::kernel_group_axis<K>() >= 0, "ct::block_groups_run: the kernel declares no ct::block_group");
  (void)kernel;
  if (s.dev().is_cpu()) return true;
#if defined(__CUDACC__)
  detail::make_current(s.dev());  // the kernel's attributes are asked of the current GPU
  return backend::cuda::groups_run<K>(s, static_cast<detail::kernel_params<K>*>(nullptr));
#else
  return false;  // compiled without nvcc: its kernels run only on the CPU
#endif
}

}  // namespace ct
