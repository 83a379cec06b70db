#pragma once
// tinygrad's getenv for integer settings (DEBUG, THREADS, CACHELEVEL, SPEC, ...): the variable's value,
// or dflt when it is unset or empty. A value that is not an integer is an error naming the variable.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "error.hpp"

namespace mg {

inline std::int64_t getenv_int(const char* name, std::int64_t dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  if (*end) throw Error(std::string("environment variable ") + name + "=" + v + " is not an integer");
  return std::int64_t(x);
}

}  // namespace mg
