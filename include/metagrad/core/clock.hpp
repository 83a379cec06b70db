#pragma once
// A monotonic clock in seconds, for timings the library prints (DEBUG=2 kernel times, progress bars).
// clock_gettime rather than <chrono>: <chrono> costs every includer of metagrad.hpp several MB of
// compiler memory for two calls.
#include <time.h>

namespace mg::detail {

inline double monotonic_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

}  // namespace mg::detail
