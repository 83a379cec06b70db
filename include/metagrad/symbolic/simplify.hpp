#pragma once
// The symbolic API: simplify (tinygrad's UOp.simplify, in symbolic.hpp), resolve, sym_infer, and the
// full `sym` rule set.
#include <concepts>
#include <cstdint>
#include <map>
#include <string>
#include <variant>

#include "../core/eval.hpp"
#include "../core/uop.hpp"
#include "../pattern/graph_rewrite.hpp"
#include "sym.hpp"
#include "symbolic.hpp"

namespace mg {

// tinygrad's Variable(name, min, max): an index variable with those bounds
inline UOp Variable(std::string name, std::int64_t min, std::int64_t max, DType dtype = dtypes::weakint) {
  return UOp::variable(std::move(name), min, max, dtype);
}
// tinygrad's sint: a size that is a plain int or symbolic
using sint = std::variant<std::int64_t, UOp>;
// tinygrad's ssimplify: the simplified expression, or its value when it folds to an int constant
template <std::same_as<UOp> U> sint ssimplify(const U& u) {
  U s = simplify(u);
  if (s.op() == Ops::CONST && s.arg().is_int()) return s.arg().as_int();
  return s;
}
// tinygrad's render(simplify=True): the infix render of the simplified expression
template <std::same_as<UOp> U> std::string render(const U& u, bool simplify_first = true) {
  return simplify_first ? simplify(u).render() : u.render();
}
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
