// What ct::launch reads off a kernel type at compile time: its parameter list and its name.
#pragma once
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>

#include "ctile/core/config.hpp"
#include "ctile/core/schedule.hpp"

namespace ct::detail {

template <class F>
struct call_signature;
template <class K, class R, class... P>
struct call_signature<R (K::*)(P...) const> {
  using params = std::tuple<std::remove_cvref_t<P>...>;
};
template <class K, class R, class... P>
struct call_signature<R (K::*)(P...)> {
  using params = std::tuple<std::remove_cvref_t<P>...>;
};

template <class K, class = void>
struct has_call_operator : std::false_type {};
template <class K>
struct has_call_operator<K, std::void_t<decltype(&K::operator())>> : std::true_type {};

template <class K>
constexpr bool check_kernel_type() {
  static_assert(has_call_operator<K>::value,
                "ct::launch: the kernel must be a struct with one non-template CT_TILE "
                "operator()(...) whose parameters are ct::out, ct::in and scalars");
  static_assert(std::is_trivially_copyable_v<K>,
                "ct::launch: the kernel object is copied to the GPU, so it must be trivially "
                "copyable (plain data members only)");
  return true;
}

template <class K>
using kernel_params = typename call_signature<decltype(&K::operator())>::params;

std::string demangle(const char* mangled);

template <class K, class = void>
struct has_name : std::false_type {};
template <class K>
struct has_name<K, std::void_t<decltype(K::name)>> : std::true_type {};

// K::name when the kernel declares one, else its C++ type name.
template <class K>
std::string kernel_name() {
  if constexpr (has_name<K>::value) return std::string(K::name);
  else return demangle(typeid(K).name());
}

// Dynamic shared memory a GPU launch of K gets: K::shared_bytes when the kernel declares it (for
// the staged operand ring of ct::pipelined, ct::pipeline_shared_bytes), else none.
template <class K>
constexpr std::size_t kernel_shared_bytes() {
  if constexpr (requires { K::shared_bytes; }) return std::size_t(K::shared_bytes);
  else return 0;
}

// The CTAs of K a GPU SM should hold at once (cuTile's `occupancy` kernel hint): K::occupancy
// when declared, which caps the kernel's registers so that that many fit (the GPU entry's
// __launch_bounds__); else 0, no hint. The CPU backend ignores it.
template <class K>
constexpr int kernel_occupancy() {
  if constexpr (requires { K::occupancy; }) {
    static_assert(K::occupancy >= 1 && K::occupancy <= 32,
                  "ct::launch: a kernel's occupancy (CTAs per SM) must be 1 to 32, as in cuTile");
    return int(K::occupancy);
  } else {
    return 0;
  }
}

// Whether K's plain GPU launches whose tensors' rows all start on 16 bytes run a second build
// of K made for such rows (backend/cuda/launch.hpp, kernel_entry_aligned_rows): K::aligned_rows_build
// when declared (a per-kernel hint: the second build doubles the kernel's device code), else
// what CTILE_ALIGNED_VARIANTS says for every kernel. The CPU backend ignores it.
template <class K>
constexpr bool kernel_aligned_rows_build() {
  if constexpr (requires { K::aligned_input_rows_build; }) return bool(K::aligned_input_rows_build);
  else if constexpr (requires { K::aligned_rows_build; }) return bool(K::aligned_rows_build);
  else return config::aligned_variants;
}

// Whether that build assumes (and its launch asks) only that K's inputs' (ct::in) rows start on
// 16 bytes, its outputs' keeping their tests: K::aligned_input_rows_build, for a kernel that
// reads flat aligned views of its inputs and writes rows off the boundary through
// out::store_shifted (kernels::layernorm's windows).
template <class K>
constexpr bool kernel_aligned_inputs_only() {
  if constexpr (requires { K::aligned_input_rows_build; }) return bool(K::aligned_input_rows_build);
  else return false;
}

// The grid axis whose tile blocks form K's groups (ct::block_group), or -1 when K declares none.
template <class K>
constexpr int kernel_group_axis() {
  if constexpr (requires { K::block_group; }) {
    static_assert(K::block_group.axis >= 0 && K::block_group.axis <= 2, "ct::block_group: axis must be 0, 1 or 2");
    return K::block_group.axis;
  } else {
    return -1;
  }
}

// How a GPU launch of K places tile blocks on CTAs: K::co_schedule when declared, else one each.
template <class K>
constexpr ct::co_schedule kernel_co_schedule() {
  if constexpr (requires { K::co_schedule; }) return K::co_schedule;
  else return ct::co_schedule{};
}

}  // namespace ct::detail
