#pragma once
// A string usable as a template argument: var<"x"> names a capture at compile time.
#include <algorithm>
#include <cstddef>
#include <string_view>

namespace mg {

template <std::size_t N>
struct fixed_string {
  char data[N]{};
  constexpr fixed_string(const char (&s)[N]) { std::copy_n(s, N, data); }
  constexpr std::string_view view() const { return {data, N - 1}; }
  constexpr std::size_t size() const { return N - 1; }
  constexpr bool empty() const { return N == 1; }
  template <std::size_t M>
  constexpr bool operator==(const fixed_string<M>& o) const { return view() == o.view(); }
};

}  // namespace mg
