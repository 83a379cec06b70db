#pragma once
// The symbolic API: simplify (tinygrad's UOp.simplify, in symbolic.hpp), resolve, sym_infer, and the
// full `sym` rule set.
#include <concepts>
#include <cstdint>
#include <map>
#include <string>

#include "../core/eval.hpp"
#include "../core/uop.hpp"
#include "../pattern/graph_rewrite.hpp"
#include "sym.hpp"
#include "symbolic.hpp"

namespace mg {

// tinygrad's resolve: the value of a bool expression when its bounds decide it, else dflt
template <std::same_as<UOp> U> bool resolve(const U& cond, bool dflt = true) {
  if (cond.dtype() != dtypes::bool_) throw Error("resolve: the UOp must be a bool, not " + cond.dtype().repr() + ": " + cond.render());
  UOp s = simplify(cond);
  auto [lo, hi] = s.min_max();
  return lo == hi ? bool(lo) : dflt;
}
// tinygrad's sym_infer: the value of an integer expression for these variable values
template <std::same_as<UOp> U> std::int64_t sym_infer(const U& u, const std::map<std::string, std::int64_t>& vars) {
  std::map<std::string, Arg> v;
  for (const auto& [k, x] : vars) v.emplace(k, Arg(x));
  Arg r = evaluate(simplify(u), v);
  if (r.is_bool()) return r.as_bool();
  if (!r.is_int()) throw Error("sym_infer: " + u.render() + " is not an integer expression (value " + r.repr() + ")");
  return r.as_int();
}

}  // namespace mg
