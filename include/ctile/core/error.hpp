// ct::error: the one exception type of ctile. Every host-side failure (bad argument, CUDA error,
// missing device, borrowed tensor) becomes one, with a message that names what went wrong.
#pragma once
#include <stdexcept>
#include <string>

namespace ct {

class error : public std::runtime_error {
 public:
  explicit error(const std::string& message) : std::runtime_error("ctile: " + message), message_(message) {}
  // The message without the "ctile: " prefix, for wrapping in a message with more context.
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

namespace detail {
[[noreturn]] inline void fail(const std::string& what) { throw error(what); }
inline void require(bool ok, const std::string& what) {
  if (!ok) fail(what);
}
}  // namespace detail

}  // namespace ct
