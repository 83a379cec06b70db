#pragma once
// mg::Error: what bad user input throws. Messages name the operation and the offending values.
#include <stdexcept>
#include <string>

namespace mg {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// a rule set that never settles, a cycle, a graph too big to rewrite
struct RewriteError : Error {
  using Error::Error;
};

}  // namespace mg
