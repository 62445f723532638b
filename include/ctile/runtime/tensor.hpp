// ct::tensor<T>: an owning, move-only handle to a strided array on one device, with 64-bit
// extents and strides (in elements). Views (reshape, slice, transpose) share the memory without
// copying; the memory lives until the last handle is gone and every launch using it has ended.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ctile/core/dtype.hpp"
#include "ctile/core/error.hpp"
#include "ctile/core/shape.hpp"
#include "ctile/runtime/storage.hpp"

namespace ct {

template <class T, class S>
class partition;

using extents_t = std::vector<index_t>;

namespace detail {
extents_t contiguous_strides(const extents_t& extents);
index_t element_count(const extents_t& extents, const char* what);
std::string format_extents(const extents_t& extents);
// Element offsets (relative to the view's first element) of a strided view, row-major.
std::vector<index_t> view_offsets(const extents_t& extents, const extents_t& strides);
// [lowest, highest] element offsets reachable by the view; {0, -1} when it is empty.
std::pair<index_t, index_t> view_span(const extents_t& extents, const extents_t& strides);
}  // namespace detail

template <class T>
class tensor {
  static_assert(is_element_v<T>, "ct::tensor: element type is not a ctile element type");
  // Host copies stage elements as T, except bool: std::vector<bool> packs bits and has no
  // data(), so bool elements travel as the bytes a bool tensor holds on every device.
  using staged_t = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;
  static_assert(sizeof(staged_t) == sizeof(T));

 public:
  using element_type = T;

  tensor() = default;  // empty: using it in a launch or copy is an error
  tensor(tensor&&) noexcept = default;
  tensor& operator=(tensor&&) noexcept = default;
  tensor(const tensor&) = delete;
  tensor& operator=(const tensor&) = delete;

  // Owning, uninitialised, contiguous (row-major).
  static tensor empty(const extents_t& extents, const device& dev) {
    detail::element_count(extents, "ct::empty");
    tensor t;
    t.extents_ = extents;
    t.strides_ = detail::contiguous_strides(extents);
    t.storage_ = detail::storage::allocate(dev, std::size_t(t.size()) * sizeof(T));
    return t;
  }

  // Borrows foreign memory (for example from PyTorch or cudaMalloc) without taking ownership.
  // The caller keeps it alive and unmodified while ctile uses it.
  static tensor borrow(const device& dev, T* data, const extents_t& extents, const extents_t& strides) {
    detail::require(data != nullptr, "ct::tensor::borrow: data pointer is null");
    detail::require(extents.size() == strides.size(),
                    "ct::tensor::borrow: got " + std::to_string(extents.size()) + " extents but " +
                        std::to_string(strides.size()) + " strides");
    detail::element_count(extents, "ct::tensor::borrow");
    detail::require(reinterpret_cast<std::uintptr_t>(data) % alignof(T) == 0,
                    std::string("ct::tensor::borrow: pointer is not aligned to ") +
                        std::to_string(alignof(T)) + " bytes, as " + dtype_name<T>() + " needs");
    auto [lo, hi] = detail::view_span(extents, strides);
    detail::require(lo >= 0, "ct::tensor::borrow: negative strides are not supported");
    tensor t;
    t.extents_ = extents;
    t.strides_ = strides;
    t.storage_ = detail::storage::borrow(dev, data, std::size_t(hi + 1) * sizeof(T));
    return t;
  }

  bool valid() const { return storage_ != nullptr; }
  int rank() const { return int(extents_.size()); }
  index_t extent(int axis) const { return extents_.at(std::size_t(axis)); }
  index_t stride(int axis) const { return strides_.at(std::size_t(axis)); }
  const extents_t& extents() const { return extents_; }
  const extents_t& strides() const { return strides_; }
  index_t size() const {
    index_t n = 1;
    for (index_t e : extents_) n *= e;
    return n;
  }
  const device& dev() const { return checked().dev(); }
  bool contiguous() const { return strides_ == detail::contiguous_strides(extents_); }

  // Device address of the first element (for interop; ctile still tracks its uses). GPU memory
  // is allocated in stream order on the device's default stream (ct::default_stream): work on
  // another stream that uses it must wait for that stream first, as for a launch that writes it.
  T* data() const { return static_cast<T*>(checked().ptr()) + offset_; }

  // ---- Host copies ----------------------------------------------------------------------------

  // Copies the elements out in row-major order (waits for launches that write this tensor).
  std::vector<T> to_host() const {
    auto& st = checked();
    st.prepare_host_access(false, "to_host");
    std::vector<T> out(static_cast<std::size_t>(size()));
    if (out.empty()) return out;
    auto [lo, hi] = detail::view_span(extents_, strides_);
    std::vector<staged_t> span(static_cast<std::size_t>(hi - lo + 1));
    st.copy_out(std::size_t(offset_ + lo) * sizeof(T), span.data(), span.size() * sizeof(T));
    const auto offsets = detail::view_offsets(extents_, strides_);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = T(span[std::size_t(offsets[i] - lo)]);
    return out;
  }

  // Overwrites the elements from row-major host data (waits for launches that use this tensor).
  void copy_from_host(const std::vector<T>& values) {
    auto& st = checked();
    detail::require(index_t(values.size()) == size(),
                    "ct::tensor::copy_from_host: got " + std::to_string(values.size()) +
                        " values for a tensor of " + std::to_string(size()) + " elements " +
                        detail::format_extents(extents_));
    st.prepare_host_access(true, "copy_from_host");
    if (values.empty()) return;
    if (contiguous()) {  // one copy; no read-back of memory that may not be initialised yet
      if constexpr (std::is_same_v<T, bool>) {
        const std::vector<staged_t> bytes(values.begin(), values.end());
        st.copy_in(std::size_t(offset_) * sizeof(T), bytes.data(), bytes.size() * sizeof(T));
      } else {
        st.copy_in(std::size_t(offset_) * sizeof(T), values.data(), values.size() * sizeof(T));
      }
      return;
    }
    auto [lo, hi] = detail::view_span(extents_, strides_);
    std::vector<staged_t> span(static_cast<std::size_t>(hi - lo + 1));
    st.copy_out(std::size_t(offset_ + lo) * sizeof(T), span.data(), span.size() * sizeof(T));
    const auto offsets = detail::view_offsets(extents_, strides_);
    for (std::size_t i = 0; i < values.size(); ++i) span[std::size_t(offsets[i] - lo)] = values[i];
    st.copy_in(std::size_t(offset_ + lo) * sizeof(T), span.data(), span.size() * sizeof(T));
  }

  // A new, contiguous tensor with the same values.
  tensor clone() const {
    tensor t = empty(extents_, dev());
    t.copy_from_host(to_host());
    return t;
  }

  // ---- Views (no copy) ------------------------------------------------------------------------

  tensor view() const {
    tensor t;
    t.storage_ = storage_;
    t.offset_ = offset_;
    t.extents_ = extents_;
    t.strides_ = strides_;
    checked();
    return t;
  }

  // Same elements, new extents; needs a contiguous tensor. One extent may be -1 (inferred).
  tensor reshape(extents_t extents) const {
    detail::require(contiguous(), "ct::tensor::reshape: the tensor is not contiguous " +
                                      detail::format_extents(extents_) + "; clone() it first");
    int infer = -1;
    index_t known = 1;
    for (std::size_t i = 0; i < extents.size(); ++i) {
      if (extents[i] == -1) {
        detail::require(infer < 0, "ct::tensor::reshape: at most one extent may be -1");
        infer = int(i);
      } else {
        detail::require(extents[i] >= 0, "ct::tensor::reshape: negative extent");
        known *= extents[i];
      }
    }
    if (infer >= 0) {
      detail::require(known > 0 && size() % known == 0,
                      "ct::tensor::reshape: cannot infer the -1 extent for " +
                          std::to_string(size()) + " elements");
      extents[std::size_t(infer)] = size() / known;
    }
    detail::require(detail::element_count(extents, "ct::tensor::reshape") == size(),
                    "ct::tensor::reshape: " + detail::format_extents(extents) + " holds a different "
                    "number of elements than " + detail::format_extents(extents_));
    tensor t = view();
    t.extents_ = extents;
    t.strides_ = detail::contiguous_strides(extents);
    return t;
  }

  // Elements [start, stop) along `axis`.
  tensor slice(int axis, index_t start, index_t stop) const {
    check_axis(axis, "slice");
    const index_t n = extents_[std::size_t(axis)];
    detail::require(0 <= start && start <= stop && stop <= n,
                    "ct::tensor::slice: range [" + std::to_string(start) + ", " +
                        std::to_string(stop) + ") is outside axis " + std::to_string(axis) +
                        " of extent " + std::to_string(n));
    tensor t = view();
    t.offset_ += start * strides_[std::size_t(axis)];
    t.extents_[std::size_t(axis)] = stop - start;
    return t;
  }

  // The same elements with a new axis of extent 1 before axis `axis` (0 to rank): a [M, N]
  // tensor unsqueezed at 0 is [1, M, N]. Works on any view, contiguous or not.
  tensor unsqueeze(int axis) const {
    detail::require(axis >= 0 && axis <= rank(), "ct::tensor::unsqueeze: axis " + std::to_string(axis) +
                                                     " out of range for rank " + std::to_string(rank()));
    tensor t = view();
    const auto at = std::ptrdiff_t(axis);
    const index_t stride = axis < rank() ? strides_[std::size_t(axis)] * extents_[std::size_t(axis)] : 1;
    t.extents_.insert(t.extents_.begin() + at, 1);
    t.strides_.insert(t.strides_.begin() + at, stride);
    return t;
  }

  // The same elements without axis `axis`, which must have extent 1 (unsqueeze's inverse).
  tensor squeeze(int axis) const {
    check_axis(axis, "squeeze");
    detail::require(extents_[std::size_t(axis)] == 1, "ct::tensor::squeeze: axis " + std::to_string(axis) + " has extent " +
                                                         std::to_string(extents_[std::size_t(axis)]) + ", not 1");
    tensor t = view();
    t.extents_.erase(t.extents_.begin() + std::ptrdiff_t(axis));
    t.strides_.erase(t.strides_.begin() + std::ptrdiff_t(axis));
    return t;
  }

  // Axis `axis` of extent n as two, [parts, n / parts] (n a multiple of parts), on any view:
  // a [M, K] tensor unflattened at 1 into 4 parts is [M, 4, K / 4], part p its columns
  // [p K / 4, (p + 1) K / 4).
  tensor unflatten(int axis, index_t parts) const {
    check_axis(axis, "unflatten");
    const index_t n = extents_[std::size_t(axis)], stride = strides_[std::size_t(axis)];
    detail::require(parts > 0 && n % parts == 0, "ct::tensor::unflatten: axis " + std::to_string(axis) + " of extent " +
                                                     std::to_string(n) + " does not split into " +
                                                     std::to_string(parts) + " equal parts");
    tensor t = view();
    const auto at = std::ptrdiff_t(axis);
    t.extents_[std::size_t(axis)] = n / parts;
    t.extents_.insert(t.extents_.begin() + at, parts);
    t.strides_.insert(t.strides_.begin() + at, stride * (n / parts));
    return t;
  }

  // Swaps two axes (default: the last two).
  tensor transpose(int a = -2, int b = -1) const {
    if (a < 0) a += rank();
    if (b < 0) b += rank();
    check_axis(a, "transpose");
    check_axis(b, "transpose");
    tensor t = view();
    std::swap(t.extents_[std::size_t(a)], t.extents_[std::size_t(b)]);
    std::swap(t.strides_[std::size_t(a)], t.strides_[std::size_t(b)]);
    return t;
  }

  // This tensor cut into tiles of shape S: the output argument of a launch. The launch grid is
  // the tile count along each axis; each block writes only its own tile.
  template <int... D>
  ct::partition<T, shape<D...>> partition(shape<D...>) {
    checked();
    detail::require(int(sizeof...(D)) == rank(),
                    "ct::tensor::partition: tile shape has rank " + std::to_string(sizeof...(D)) +
                        " but the tensor " + detail::format_extents(extents_) + " has rank " +
                        std::to_string(rank()));
    return ct::partition<T, shape<D...>>(*this);
  }

  // Internal: the storage and the element offset of the first element.
  const std::shared_ptr<detail::storage>& storage_ptr() const { return storage_; }
  index_t offset() const { return offset_; }

 private:
  detail::storage& checked() const {
    detail::require(storage_ != nullptr,
                    "ct::tensor: this tensor is empty (default-constructed or moved from)");
    return *storage_;
  }
  void check_axis(int axis, const char* op) const {
    detail::require(axis >= 0 && axis < rank(), std::string("ct::tensor::") + op + ": axis " +
                                                    std::to_string(axis) + " out of range for rank " +
                                                    std::to_string(rank()));
  }

  std::shared_ptr<detail::storage> storage_;
  index_t offset_ = 0;
  extents_t extents_;
  extents_t strides_;
};

// An output tensor cut into tiles of shape S. Holds a reference: the tensor must outlive it.
template <class T, class S>
class partition {
 public:
  explicit partition(tensor<T>& t) : t_(&t) {}
  tensor<T>& target() const { return *t_; }
  // Tiles along each axis (the launch grid).
  index_t tiles(int axis) const { return (t_->extent(axis) + S::dim(axis) - 1) / S::dim(axis); }

 private:
  tensor<T>* t_;
};

namespace detail {
// The bytes t's elements span, [first byte, one past the last); empty (both at its start) for an
// empty view. What a launch checks its outputs' overlap with.
template <class T>
std::pair<std::uintptr_t, std::uintptr_t> byte_span(const tensor<T>& t) {
  const auto [lo, hi] = view_span(t.extents(), t.strides());
  const auto base = reinterpret_cast<std::uintptr_t>(t.data());
  if (hi < lo) return {base, base};
  return {base + std::uintptr_t(lo) * sizeof(T), base + std::uintptr_t(hi + 1) * sizeof(T)};
}
}  // namespace detail

}  // namespace ct
