// An environment variable set (or unset) for a test's scope.
#pragma once
#include <cstdlib>
#include <optional>
#include <string>

namespace mg::test {

// sets name to value (unsets it for nullopt) until the end of the scope, then puts back what was there,
// also when a REQUIRE leaves the scope early
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace mg::test
