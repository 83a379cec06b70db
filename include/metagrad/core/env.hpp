#pragma once
// Settings: tinygrad's getenv for integer settings (DEBUG, THREADS, CACHELEVEL, SPEC, ...), and scoped
// per-thread switches (Tensor::NoGrad, nn::EmptyInit).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "error.hpp"

namespace mg {

// the variable's value, or dflt when it is unset or empty. A value that is not an integer is an error
// naming the variable.
inline std::int64_t getenv_int(const char* name, std::int64_t dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  if (*end) throw Error(std::string("environment variable ") + name + "=" + v + " is not an integer");
  return std::int64_t(x);
}

namespace detail {
// A switch that is on for this thread while an object of it is alive (nested ones restore the state
// before them). Tag makes each switch its own: `using NoGrad = detail::ThreadSwitch<struct NoGradTag>;`
template <class Tag>
class ThreadSwitch {
 public:
  ThreadSwitch() : prev_(std::exchange(active(), true)) {}
  ~ThreadSwitch() { active() = prev_; }
  ThreadSwitch(const ThreadSwitch&) = delete;
  ThreadSwitch& operator=(const ThreadSwitch&) = delete;
  static bool& active() {
    static thread_local bool on = false;
    return on;
  }

 private:
  bool prev_;
};
}  // namespace detail

}  // namespace mg
