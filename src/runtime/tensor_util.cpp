// Extent and stride arithmetic shared by every tensor type, and kernel-name demangling.
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "ctile/runtime/kernel_traits.hpp"
#include "ctile/runtime/tensor.hpp"

namespace ct::detail {

extents_t contiguous_strides(const extents_t& extents) {
  extents_t s(extents.size());
  index_t acc = 1;
  for (std::size_t i = extents.size(); i-- > 0;) {
    s[i] = acc;
    acc *= extents[i] > 0 ? extents[i] : 1;
  }
  return s;
}

index_t element_count(const extents_t& extents, const char* what) {
  index_t n = 1;
  for (index_t e : extents) {
    require(e >= 0, std::string(what) + ": negative extent in " + format_extents(extents));
    require(e == 0 || n <= (index_t(1) << 62) / e, std::string(what) + ": " + format_extents(extents) +
                                                       " has too many elements");
    n *= e;
  }
  return n;
}

std::string format_extents(const extents_t& extents) {
  std::string s = "[";
  for (std::size_t i = 0; i < extents.size(); ++i) s += (i ? ", " : "") + std::to_string(extents[i]);
  return s + "]";
}

std::vector<index_t> view_offsets(const extents_t& extents, const extents_t& strides) {
  const index_t n = element_count(extents, "view");
  std::vector<index_t> out(static_cast<std::size_t>(n));
  std::vector<index_t> idx(extents.size(), 0);
  index_t off = 0;
  for (index_t i = 0; i < n; ++i) {
    out[std::size_t(i)] = off;
    for (std::size_t d = extents.size(); d-- > 0;) {
      if (++idx[d] < extents[d]) {
        off += strides[d];
        break;
      }
      off -= strides[d] * (extents[d] - 1);
      idx[d] = 0;
    }
  }
  return out;
}

std::pair<index_t, index_t> view_span(const extents_t& extents, const extents_t& strides) {
  index_t lo = 0, hi = 0;
  for (std::size_t d = 0; d < extents.size(); ++d) {
    if (extents[d] == 0) return {0, -1};
    const index_t reach = strides[d] * (extents[d] - 1);
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi};
}

std::string demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(mangled);
}

}  // namespace ct::detail
