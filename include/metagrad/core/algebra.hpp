#pragma once
// The small algebra tinygrad's symbolic rules are written in: split_uop, const_factor, divides,
// divide_exact, pop_const, gcd, usum, uprod (tinygrad/uop/ops.py, "uop symbolic stuff").
#include <algorithm>
#include <concepts>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "uop.hpp"

namespace mg {
namespace detail {
inline std::pair<SymVal, SymVal> dtype_bounds(DType dt);  // core/bounds.hpp (which may be the header being read)
// a multiset of nodes that keeps first-insertion order, like the collections.Counter tinygrad uses
struct NodeCounter {
  std::vector<std::pair<UOp, std::int64_t>> items;
  std::int64_t& operator[](const UOp& u) {
    for (auto& [k, c] : items) if (k == u) return c;
    return items.emplace_back(u, 0).second;
  }
  std::int64_t get(const UOp& u) const {
    for (const auto& [k, c] : items) if (k == u) return c;
    return 0;
  }
};
inline bool py_divisible(std::int64_t a, std::int64_t v) { return v != 0 && a % v == 0; }
inline bool const_int(const UOp& u) { return u.op() == Ops::CONST && u.arg().is_int(); }
// two int64 constants of a signed integer dtype (the index math's usual case): the value exec_alu computes
// (Python's ints, which const_like then wraps to the dtype), in int64 when it fits; nullopt otherwise. (A
// template: compiled only where used, not by every user of core/uop.hpp, which includes this header.)
template <class = void> std::optional<Arg> fold_int_binary(Ops op, const Node* s0, const Node* s1) {
  const DType dt = s0->dtype;
  if (s0->op != Ops::CONST || s1->op != Ops::CONST || !(s1->dtype == dt) || !dt.is_int() || dt.is_unsigned() || dt.count != 1 ||
      !s0->arg.is_int() || !s1->arg.is_int())
    return std::nullopt;
  const std::int64_t x = s0->arg.as_int(), y = s1->arg.as_int();
  std::int64_t r;
  switch (op) {
    case Ops::ADD: if (__builtin_add_overflow(x, y, &r)) return std::nullopt; return Arg(r);
    case Ops::MUL: if (__builtin_mul_overflow(x, y, &r)) return std::nullopt; return Arg(r);
    case Ops::MAX: return Arg(x < y ? y : x);
    case Ops::CMPLT: return Arg(x < y);
    case Ops::CMPNE: return Arg(x != y);
    case Ops::CMPEQ: return Arg(x == y);
    case Ops::XOR: return Arg(x ^ y);
    case Ops::AND: return Arg(x & y);
    case Ops::OR: return Arg(x | y);
    case Ops::FLOORDIV:
      if (y == 0 || (y == -1 && x == std::numeric_limits<std::int64_t>::min())) return std::nullopt;
      return Arg(py_floordiv(x, y));
    case Ops::FLOORMOD:
      if (y == 0) return std::nullopt;
      return Arg(y == -1 ? std::int64_t(0) : py_floormod(x, y));
    default: return std::nullopt;
  }
}
// a op b, where a rule's callback combines constants (x*(c0+c1), x+(c1+c2), -c): two integer constants
// give the constant the rewrite's constant folding would make of a.alu(op, b) (fold_int_binary, then
// const_ as fold_const_alu does), x + 0 and 0 + x give x, anything else is that ALU node. The rewrite
// reaches the same fixed point either way; folded here, it does not build, visit and drop the ALU node.
// Only for results the rewrite takes as they are: a callback that compares unsimplified results (by size,
// as nest_by_factor does) must build them as tinygrad does. (Generic, so that rules the static kernels
// also run in constant evaluation can call it: their nodes get the ALU node.)
template <class U> constexpr U fold_alu(Ops op, const U& a, const U& b) {
  if constexpr (std::same_as<U, UOp>) {
    if (auto r = fold_int_binary(op, a.node(), b.node()))
      return U::const_(GroupOp::Comparison.contains(op) ? dtypes::bool_ : b.dtype(), std::move(*r));
    if (op == Ops::ADD && a.dtype() == b.dtype()) {  // x + 0 and 0 + x are x (symbolic_simple's first rule)
      if (b.op() == Ops::CONST && b.arg().is_int() && b.arg().as_int() == 0) return a;
      if (a.op() == Ops::CONST && a.arg().is_int() && a.arg().as_int() == 0) return b;
    }
    return a.alu(op, b);
  } else {
    return a.alu(op, {b});
  }
}
// -a and a - b as the operators build them (a + b * -1), with fold_alu's folding
template <std::same_as<UOp> U> U fold_neg(const U& a) { return a.dtype().scalar().is_bool() ? a.neg() : fold_alu(Ops::MUL, a, a.const_like(-1)); }
template <class U> constexpr U fold_sub(const U& a, const U& b) {
  if constexpr (std::same_as<U, UOp>) return fold_alu(Ops::ADD, a, fold_neg(b));
  else return a - b;
}
}  // namespace detail

namespace detail {
// Calls f on the terms of a chain of sep (what split_uop returns), left to right, as raw nodes; stops
// early when f returns false. The walk's stack lives on the C++ stack up to 32 pending terms: the
// symbolic rules split a sum at almost every node they look at, and most sums have a few terms.
template <class F> void for_each_split(const Node* root, Ops sep, F&& f) {
  SmallVec<const Node*, 32> stack;
  stack.push_back(root);
  while (!stack.empty()) {
    const Node* u = stack.back();
    stack.pop_back();
    if (u->op != sep) {
      if constexpr (std::is_same_v<decltype(f(u)), bool>) {
        if (!f(u)) return;
      } else {
        f(u);
      }
      continue;
    }
    for (std::size_t i = u->src.size(); i > 0; --i) stack.push_back(u->src[i - 1].node());
  }
}
}  // namespace detail

namespace detail {
// split_uop's terms appended to out (a SmallVec for the rules that split at every node they look at)
template <class C> void split_into(const UOp& u, Ops sep, C& out) {
  if (u.op() != sep) {
    out.push_back(u);
    return;
  }
  for_each_split(u.node(), sep, [&](const Node* t) { out.push_back(UOp::from_node(t)); });
}
}  // namespace detail

template <class> std::vector<UOp> UOp::split_uop(Ops sep) const {
  std::vector<UOp> out;
  if (op() == sep) {
    std::size_t n = 0;
    detail::for_each_split(node(), sep, [&](const detail::Node*) { ++n; });
    out.reserve(n);
  }
  detail::split_into(*this, sep, out);
  return out;
}

template <class> std::int64_t UOp::const_factor() const {
  switch (op()) {
    case Ops::CONST: return arg().is_int() ? arg().as_int() : arg().is_bool() ? std::int64_t(arg().as_bool()) : 1;
    case Ops::STACK: {
      std::int64_t g = 0;
      for (const UOp& s : src()) g = std::gcd(g, s.const_factor());
      return g;
    }
    case Ops::ADD: {
      std::int64_t g = 0;
      detail::for_each_split(node(), Ops::ADD, [&](const detail::Node* t) { g = std::gcd(g, detail::Borrowed(t).get().const_factor()); });
      return g;
    }
    case Ops::MUL:
      if (detail::const_int(src(0))) return src(0).arg().as_int();
      if (detail::const_int(src(1))) return src(1).arg().as_int();
      return 1;
    default: return 1;
  }
}

template <class> std::optional<UOp> UOp::divides(std::int64_t v) const {
  if (v == 1) return *this;
  switch (op()) {
    case Ops::CONST:
      if (!arg().is_int() || !detail::py_divisible(arg().as_int(), v)) return std::nullopt;
      return const_like(detail::py_floordiv(arg().as_int(), v));
    case Ops::STACK: {
      std::vector<UOp> s;
      for (const UOp& x : src()) {
        auto d = x.divides(v);
        if (!d) return std::nullopt;
        s.push_back(*d);
      }
      return UOp(Ops::STACK, dtype(), std::move(s));
    }
    case Ops::ADD: {
      auto d0 = src(0).divides(v);
      if (!d0) return std::nullopt;
      auto d1 = src(1).divides(v);
      if (!d1) return std::nullopt;
      return *d0 + *d1;
    }
    case Ops::MUL:
      if (auto d0 = src(0).divides(v)) return *d0 * src(1);
      if (auto d1 = src(1).divides(v)) return src(0) * *d1;
      return std::nullopt;
    default: return std::nullopt;
  }
}

inline std::pair<UOp, Arg> UOp::pop_const(Ops o) const {
  if (op() == o && src(1).op() == Ops::CONST) return {src(0), src(1).arg()};
  // tinygrad's identity_element
  if (o == Ops::ADD) return {*this, normalize_const(dtype(), Arg(std::int64_t(0)))};
  if (o == Ops::MUL) return {*this, normalize_const(dtype(), Arg(std::int64_t(1)))};
  auto b = detail::dtype_bounds(dtype());
  return {*this, b.first.is_float() ? Arg(b.first.as_double()) : Arg(std::int64_t(b.first.as_i128()))};
}

namespace detail {
// UOp::gcd's parts: the factors every term shares (with multiplicity, in first-seen order) and the
// gcd of the const factors
template <class = void> std::pair<NodeCounter, std::int64_t> gcd_parts(std::span<const UOp> uops) {
  if (uops.empty()) throw Error("UOp::gcd: no operands");
  std::int64_t g = 0;
  NodeCounter count;
  for (std::size_t i = 0; i < uops.size(); ++i) {
    std::int64_t f = uops[i].const_factor();
    auto t = uops[i].divides(f);
    if (!t) throw Error("UOp::gcd: " + uops[i].render() + " is not divisible by its const factor " + std::to_string(f));
    g = std::gcd(g, f);
    NodeCounter c;
    for (const UOp& m : t->split_uop(Ops::MUL)) ++c[m];
    if (i == 0) count = std::move(c);
    else
      for (auto& [k, n] : count.items) n = std::min(n, c.get(k));
  }
  return {std::move(count), g};
}
// UOp::gcd from its parts, math.prod([*elements, const]): ((1*e0)*e1)*...*const, the const of
// like's dtype (the first operand's)
template <class = void> UOp gcd_product(const NodeCounter& count, std::int64_t g, const UOp& like) {
  UOp r;
  for (const auto& [k, n] : count.items)
    for (std::int64_t j = 0; j < n; ++j) r = r ? r * k : k.const_like(1) * k;
  UOp c = like.const_like(g);
  return r ? r * c : c;
}
}  // namespace detail

template <class> UOp UOp::gcd(std::span<const UOp> uops) {
  auto [count, g] = detail::gcd_parts(uops);
  return detail::gcd_product(count, g, uops[0]);
}

template <class> std::optional<UOp> UOp::divide_exact(const UOp& v) const {
  if (*this == v) return const_like(1);
  if (v.op() == Ops::CONST) return v.arg().is_int() ? divides(v.arg().as_int()) : std::nullopt;
  if (op() == Ops::ADD) {
    auto s0 = src(0).divide_exact(v);
    if (!s0) return std::nullopt;
    auto s1 = src(1).divide_exact(v);
    if (!s1) return std::nullopt;
    return *s0 + *s1;
  }
  if (op() == Ops::MUL) {
    auto [fac, c] = pop_const(Ops::MUL);
    auto [dfac, dc] = v.pop_const(Ops::MUL);
    if (!c.is_int() || !dc.is_int() || !detail::py_divisible(c.as_int(), dc.as_int())) return std::nullopt;
    detail::NodeCounter count;
    for (const UOp& m : fac.split_uop(Ops::MUL)) ++count[m];
    for (const UOp& m : dfac.split_uop(Ops::MUL)) --count[m];
    for (const auto& [k, n] : count.items) if (n < 0) return std::nullopt;
    UOp r = const_like(detail::py_floordiv(c.as_int(), dc.as_int()));
    for (const auto& [k, n] : count.items)
      for (std::int64_t j = 0; j < n; ++j) r = r * k;
    return r;
  }
  return std::nullopt;
}

// tinygrad's UOp.usum(*uops) / UOp.uprod(*uops): folded left from the first
inline UOp UOp::usum(std::span<const UOp> uops) {
  if (uops.empty()) throw Error("UOp::usum: no operands");
  UOp r = uops[0];
  for (const UOp& u : uops.subspan(1)) r = r.dtype() == dtypes::bool_ ? (r | u) : (r + u);
  return r;
}
inline UOp UOp::uprod(std::span<const UOp> uops) {
  if (uops.empty()) throw Error("UOp::uprod: no operands");
  UOp r = uops[0];
  for (const UOp& u : uops.subspan(1)) r = r.dtype() == dtypes::bool_ ? (r & u) : (r * u);
  return r;
}

}  // namespace mg
