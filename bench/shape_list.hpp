// Shapes given on a benchmark's command line: "4096x4096x4096,8192x8192x8192".
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include <ctile/ctile.hpp>

namespace bench {

// The extents of one shape, "AxBx...": positive integers separated by 'x'; empty if the text
// is not one.
inline std::vector<ct::index_t> parse_extents(const std::string& shape) {
  std::vector<ct::index_t> e;
  std::stringstream dims(shape);
  for (std::string d; std::getline(dims, d, 'x');) {
    const bool digits = !d.empty() && d.size() < 12 && d.find_first_not_of("0123456789") == std::string::npos;
    const ct::index_t n = digits ? std::stoll(d) : 0;
    if (n < 1) return {};
    e.push_back(n);
  }
  if (!shape.empty() && shape.back() == 'x') return {};
  return e;
}

// The comma-separated shapes of `list`, each checked by `valid` (given the text and its
// extents, it throws a message naming the option where they are not what the benchmark takes).
template <class Check>
std::vector<std::vector<ct::index_t>> parse_shape_list(const std::string& list, Check valid) {
  std::vector<std::vector<ct::index_t>> shapes;
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    auto e = parse_extents(item);
    valid(item, e);
    shapes.push_back(std::move(e));
  }
  return shapes;
}

}  // namespace bench
