#pragma once
// tinygrad's symbolic rule sets (tinygrad/uop/symbolic.py), with its names: propagate_invalid,
// symbolic_simple, commutative, symbolic (which adds div_and_mod_symbolic), sym, and the helpers
// their callbacks are written in.
#include <array>
#include <bit>
#include <concepts>
#include <cstring>
#include <numeric>
#include <optional>
#include <vector>
#include <limits>

#include "../core/cmath.hpp"
#include "../core/alu.hpp"
#include "../core/eval.hpp"
#include "../core/extern_engine.hpp"
#include "../core/uop.hpp"
#include "../pattern/graph_rewrite.hpp"
#include "../pattern/rules.hpp"
#include "decompositions.hpp"
#include "divandmod.hpp"

namespace mg {
namespace detail {
inline constexpr OpSet BinaryNoCmp = GroupOp::Binary - GroupOp::Comparison;
inline constexpr OpSet BinaryNoThreefry = GroupOp::Binary - OpSet{Ops::THREEFRY};

// dtype filters: tinygrad's dtypes.ints+(dtypes.bool, dtypes.weakint), dtypes.ints+(dtypes.weakint,), dtypes.sints
template <class P> constexpr auto ints_bool_weak(P p) {
  return p.dtype(dtypes::int8, dtypes::int16, dtypes::int32, dtypes::int64, dtypes::uint8, dtypes::uint16, dtypes::uint32,
                 dtypes::uint64, dtypes::bool_, dtypes::weakint);
}
template <class P> constexpr auto ints_weak(P p) {
  return p.dtype(dtypes::int8, dtypes::int16, dtypes::int32, dtypes::int64, dtypes::uint8, dtypes::uint16, dtypes::uint32,
                 dtypes::uint64, dtypes::weakint);
}
template <class P> constexpr auto sints(P p) { return p.dtype(dtypes::int8, dtypes::int16, dtypes::int32, dtypes::int64); }

// The rule sets are LazyRules (pattern/rules.hpp): each is written in a function template, so a
// translation unit instantiates its patterns only if it rewrites with it. The Invalid patterns they
// share are templates for the same reason.
template <class> inline constexpr auto invalid_pat_v = op<Ops::CONST>.arg(Invalid{}).named("i"_n);
template <class T> inline constexpr auto invalid_gate_v = where(var<"cond">, var<"x">, invalid_pat_v<T>);

inline Arg arg_of(const SymVal& v) {
  if (v.is_float()) return Arg(v.as_double());
  if (v.fits_int64()) return Arg(v.as_int());
  throw Error("symbolic: bound " + v.repr() + " does not fit a constant");
}

// the value of a CONST, or the tuple of a STACK of CONSTs
template <std::same_as<UOp> U> std::optional<Arg> const_arg(const U& u) {
  if (u.op() == Ops::CONST) return u.arg();
  if (u.op() == Ops::STACK) {
    ArgTuple t;
    for (const UOp& s : u.src()) {
      if (s.op() != Ops::CONST) return std::nullopt;
      t.push_back(s.arg());
    }
    return Arg(std::move(t));
  }
  return std::nullopt;
}
// x.const_like(false).cast(to bool of x's width), the result of x<x and x!=x. For a scalar UOp, the bool
// constant the rewrite folds that cast to (a CAST of a constant is the constant), without the cast.
template <class U> constexpr U false_like(const U& x) {
  if constexpr (std::same_as<U, UOp>)
    if (x.dtype().count == 1) return UOp::const_(dtypes::bool_, false);
  return x.const_like(false).cast(dtypes::bool_.vec(x.dtype().count));
}
template <std::same_as<UOp> U> std::optional<U> fold_const_alu(const U& a) {
  if (a.nsrc() == 2)
    if (auto r = fold_int_binary(a.op(), a.src(0).node(), a.src(1).node())) return a.const_like(std::move(*r));
  std::array<Arg, 3> vals;  // ALU ops take at most three sources
  if (a.nsrc() > vals.size()) return std::nullopt;
  for (std::size_t i = 0; i < a.nsrc(); ++i) {
    auto v = const_arg(a.src(i));
    if (!v) return std::nullopt;
    vals[i] = std::move(*v);
  }
  auto r = exec_alu(a.op(), a.dtype(), std::span<const Arg>(vals.data(), a.nsrc()), a.src(a.nsrc() - 1).dtype(), false);
  if (!r) return std::nullopt;
  return a.const_like(std::move(*r));
}

// a node whose bounds are one value, as a constant (the ALU/variable min == max rule); compile-time
// nodes have their own overload beside them (static/graph.hpp)
template <std::same_as<UOp> U> std::optional<U> const_if_fixed(const U& x) {
  auto [lo, hi] = x.min_max();
  if (!(lo == hi) || lo.is_inf()) return std::nullopt;
  return x.const_like(arg_of(lo));
}

template <std::same_as<UOp> U> std::optional<U> simplify_pow(const U& x, const U& c) {
  double v = c.arg().as_float();
  if (v < 0) return x.reciprocal().pow(-c);
  if (v == 0) return x.const_like(1);
  if (double(std::int64_t(v - 0.5)) + 0.5 == v) return x.pow(c.const_like(v - 0.5)) * x.sqrt();
  if (double(std::int64_t(v)) == v) {
    std::int64_t n = std::int64_t(v);
    UOp y = x.pow(c.const_like(c.arg().is_int() ? Arg(n / 2) : Arg(cmath::floor(v / 2))));
    return (n % 2 == 1) ? y * y * x : y * y * 1;
  }
  return std::nullopt;
}

template <std::same_as<UOp> U> std::optional<U> fold_bitcast(const U& root, const U& c) {
  DType from = c.dtype().scalar(), to = root.dtype().scalar();
  if (c.dtype().itemsize() != root.dtype().itemsize() || root.dtype().count != 1 || from.is_bool() || to.is_bool()) return std::nullopt;
  if (from.itemsize() != to.itemsize() || from.is_fp8() || to.is_fp8() || from == dtypes::bfloat16 || to == dtypes::bfloat16 ||
      from == dtypes::float16 || to == dtypes::float16 || from == dtypes::weakint || to == dtypes::weakint)
    return std::nullopt;
  std::uint64_t bits = 0;
  if (from.is_float()) {
    if (from == dtypes::float32) bits = std::bit_cast<std::uint32_t>(float(c.arg().as_float()));
    else bits = std::bit_cast<std::uint64_t>(c.arg().as_float());
  } else {
    bits = std::uint64_t(c.arg().as_int());
  }
  if (from.itemsize() < 8) bits &= (std::uint64_t(1) << (8 * from.itemsize())) - 1;
  if (to.is_float()) {
    if (to == dtypes::float32) return root.const_like(double(std::bit_cast<float>(std::uint32_t(bits))));
    return root.const_like(std::bit_cast<double>(bits));
  }
  return root.const_like(std::int64_t(bits));  // the const normalizes (sign, width) to root's dtype
}

// x is (base%div)*mul + (base//div)*(div*mul) and its variations: fold to base*mul
template <std::same_as<UOp> U> std::optional<U> fold_add_divmod_recombine(const U& x) {
  auto cint = [](const UOp& u) { return u.op() == Ops::CONST && u.arg().is_int(); };
  // it needs a term with a constant mod and another times a constant: most sums have neither, so look
  // at the terms in place before splitting them out
  bool has_mod = false, has_mul = false;
  for_each_split(x.node(), Ops::ADD, [&](const Node* t) {
    if (t->op == Ops::MUL && cint(t->src[1])) {
      has_mul = true;
      if (t->src[0].op() == Ops::FLOORMOD && cint(t->src[0].src(1))) has_mod = true;
    } else if (t->op == Ops::FLOORMOD && cint(t->src[1])) {
      has_mod = true;
    }
    return !(has_mod && has_mul);
  });
  if (!has_mod || !has_mul) return std::nullopt;
  std::vector<UOp> terms = x.split_uop(Ops::ADD);
  auto rest = [&](std::size_t i, std::size_t j, UOp head) {
    std::vector<UOp> r{head};
    for (std::size_t k = 0; k < terms.size(); ++k) if (k != i && k != j) r.push_back(terms[k]);
    return UOp::usum(r);
  };
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const UOp& u = terms[i];
    UOp base;
    std::int64_t div, mul;
    if (u.op() == Ops::FLOORMOD && cint(u.src(1))) base = u.src(0), div = u.src(1).arg().as_int(), mul = 1;
    else if (u.op() == Ops::MUL && cint(u.src(1)) && u.src(0).op() == Ops::FLOORMOD && cint(u.src(0).src(1)))
      base = u.src(0).src(0), div = u.src(0).src(1).arg().as_int(), mul = u.src(1).arg().as_int();
    else continue;
    for (std::size_t j = 0; j < terms.size(); ++j) {
      if (i == j) continue;
      const UOp& v = terms[j];
      if (v.op() != Ops::MUL || !cint(v.src(1)) || v.src(1).arg().as_int() != div * mul) continue;
      const UOp& q = v.src(0);
      bool exact = false;
      if (q.op() == Ops::FLOORDIV && cint(q.src(1)) && q.src(1).arg().as_int() == div) exact = q.src(0) == base;
      if (!exact && div > 0 && base.op() == Ops::FLOORDIV && cint(base.src(1)))
        exact = q.op() == Ops::FLOORDIV && cint(q.src(1)) && q.src(0) == base.src(0) && q.src(1).arg().as_int() == base.src(1).arg().as_int() * div;
      if (exact) return rest(i, j, base * mul);
      if (div > 0 && q.op() == Ops::FLOORMOD && cint(q.src(1)) && q.src(1).arg().as_int() > 0 && q.src(0).op() == Ops::FLOORDIV) {
        std::int64_t d = q.src(1).arg().as_int();
        if (q.src(0).src(0) == base && cint(q.src(0).src(1)) && q.src(0).src(1).arg().as_int() == div) return rest(i, j, (base % (div * d)) * mul);
      }
    }
  }
  return std::nullopt;
}

template <std::same_as<UOp> U> std::optional<U> lt_folding(const U& x, std::int64_t c) {
  std::vector<UOp> p, np;
  for (const UOp& u : x.split_uop(Ops::ADD)) (u.const_factor() == 1 ? p : np).push_back(u);
  if (np.empty()) return std::nullopt;
  std::int64_t d = c;
  for (const UOp& u : np) d = std::gcd(d, u.const_factor());
  if (d <= 1) return std::nullopt;
  SymVal lo = 0, hi = 0;
  for (const UOp& u : p) lo = lo + u.vmin(), hi = hi + u.vmax();
  if (!(0 <= lo && hi < d)) return std::nullopt;
  auto div = UOp::usum(np).divides(d);
  if (!div) return std::nullopt;
  return *div < py_floordiv(c, d);
}

template <std::same_as<UOp> U> std::optional<U> canonicalize_simplex(const U& X) {
  bool changed = false;
  std::vector<UOp> ret;
  for (UOp u : X.split_uop(Ops::ADD)) {
    if (u.op() == Ops::MUL && u.src(1).op() == Ops::CONST && u.src(1).arg().is_number() && u.src(1).arg().as_float() > 0) changed = true, u = u.src(0);
    if (!(GroupOp::Irreducible.contains(u.op()) && u.vmin() >= 0)) return std::nullopt;
    ret.push_back(u);
  }
  if (!changed) return std::nullopt;
  return UOp::usum(ret);
}

// tinygrad's tuplize ordering: (op, arg, dtype, *src) compared as Python tuples
inline int arg_cmp(const Arg& a, const Arg& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.as_float() < b.as_float() ? -1 : b.as_float() < a.as_float() ? 1 : 0;
    return a.as_int() < b.as_int() ? -1 : b.as_int() < a.as_int() ? 1 : 0;
  }
  if (a.is_tuple() && b.is_tuple()) {
    const auto &x = a.as_tuple(), &y = b.as_tuple();
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) if (int c = arg_cmp(x[i], y[i])) return c;
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  if (a.is<std::string>() && b.is<std::string>()) return a.as_str().compare(b.as_str()) < 0 ? -1 : a.as_str() == b.as_str() ? 0 : 1;
  if (a.is<Invalid>() != b.is<Invalid>()) return a.is<Invalid>() ? -1 : 1;
  return 0;
}
// (priority, bitsize, name, count) compared in turn, without a tuple (its comparison costs every includer)
inline int dtype_cmp(DType a, DType b) {
  if (a.priority() != b.priority()) return a.priority() < b.priority() ? -1 : 1;
  if (a.bitsize() != b.bitsize()) return a.bitsize() < b.bitsize() ? -1 : 1;
  if (const int c = a.scalar().info().cname.compare(b.scalar().info().cname)) return c < 0 ? -1 : 1;
  return a.count < b.count ? -1 : a.count > b.count ? 1 : 0;
}
template <std::same_as<UOp> U> int tuplize_cmp(const U& a, const U& b) {
  if (a == b) return 0;
  if (a.op() != b.op()) return int(a.op()) < int(b.op()) ? -1 : 1;
  if (int c = arg_cmp(a.arg(), b.arg())) return c;
  if (int c = dtype_cmp(a.dtype(), b.dtype())) return c;
  for (std::size_t i = 0; i < std::min(a.nsrc(), b.nsrc()); ++i) if (int c = tuplize_cmp(a.src(i), b.src(i))) return c;
  return a.nsrc() < b.nsrc() ? -1 : a.nsrc() > b.nsrc() ? 1 : 0;
}
}  // namespace detail

// ---- propagate_invalid: before symbolic, so 0*something_that_might_be_invalid does not become 0 ----
namespace detail {
template <class D_ = void>
struct propagate_invalid_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    const auto invalid_pat = invalid_pat_v<T>;
    const auto invalid_gate = invalid_gate_v<T>;
    return rules(
        rule(cast(invalid_gate).named("cast"_n),
             [](const UOp& cast, const UOp&, const UOp& x, const UOp& i) -> std::optional<UOp> { if (i.dtype() != dtypes::weakint) return std::nullopt; return x.cast(cast.dtype()); }),
        rule(op<GroupOp::Unary>(invalid_gate).named("alu"_n), [](const UOp& alu, const UOp& cond, const UOp& x, const UOp& i) { return cond.where(x.alu(alu.op()), i); }),
        rule(op<BinaryNoCmp>(invalid_gate, var<"y">).named("alu"_n),
             [](const UOp& alu, const UOp& cond, const UOp& x, const UOp& i, const UOp& y) { return cond.where(x.alu(alu.op(), {y}), i); }),
        rule(op<BinaryNoCmp>(var<"y">, invalid_gate).named("alu"_n),
             [](const UOp& alu, const UOp& y, const UOp& cond, const UOp& x, const UOp& i) { return cond.where(y.alu(alu.op(), {x}), i); }),
        rule(op<GroupOp::Comparison>(invalid_gate, var<"y">).named("alu"_n), [](const UOp& alu, const UOp& cond, const UOp& x, const UOp& i, const UOp& y) {
          return i.dtype() == dtypes::weakint ? x.alu(alu.op(), {y}) : cond.where(x.alu(alu.op(), {y}), i.cast(dtypes::bool_));
        }),
        rule(op<GroupOp::Comparison>(var<"y">, invalid_gate).named("alu"_n), [](const UOp& alu, const UOp& y, const UOp& cond, const UOp& x, const UOp& i) {
          return i.dtype() == dtypes::weakint ? y.alu(alu.op(), {x}) : cond.where(y.alu(alu.op(), {x}), i.cast(dtypes::bool_));
        }),
        // an ALU on Invalid is Invalid
        rule(op<GroupOp::Unary>(invalid_pat), [](const UOp& i) { return i; }),
        rule(op<BinaryNoCmp>(any_order(invalid_pat, upat)), [](const UOp& i) { return i; }),
        // where(cond, Invalid, val) -> where(!cond, val, Invalid)
        rule(where(var<"cond">, invalid_pat, var<"val">),
             [](const UOp& cond, const UOp& i, const UOp& val) { return is_invalid(val) ? i : cond.logical_not().where(val, i); }),
        // lift Invalid out
        rule(where(var<"a">, invalid_gate, var<"c">), [](const UOp& a, const UOp& cond, const UOp& x, const UOp& i, const UOp& c) -> std::optional<UOp> {
          if (is_invalid(c)) return std::nullopt;
          return (a == cond ? cond : (a.logical_not() | cond)).where(a.where(x, c), i);
        }),
        rule(where(var<"a">, var<"b">, invalid_gate), [](const UOp& a, const UOp& b, const UOp& cond, const UOp& x, const UOp& i) -> std::optional<UOp> {
          if (is_invalid(b)) return std::nullopt;
          return (a | cond).where(a.where(b, x), i);
        }),
        rule(bitcast(invalid_pat).named("bc"_n), [](const UOp& bc, const UOp& i) { return i.cast(bc.dtype()); }),
        rule(bitcast(invalid_gate).named("bc"_n),
             [](const UOp& bc, const UOp& cond, const UOp& x, const UOp& i) { return cond.where(x.bitcast(bc.dtype()), i.bitcast(bc.dtype())); }),
        // fold gated LOAD/STORE
        rule(op<Ops::STORE>(or_casted(op<Ops::INDEX>(upat, invalid_pat, etc)), upat), [](const UOp&) { return UOp(Ops::NOOP); }),
        rule(op<Ops::LOAD>(or_casted(op<Ops::INDEX>(upat, invalid_pat, etc)), etc).named("x"_n),
             [](const UOp& x, const UOp&) { return x.nsrc() > 1 ? x.src(1) : x.const_like(0); }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::propagate_invalid_def<>> propagate_invalid{};

namespace detail {
template <class D_ = void>
struct symbolic_simple_def {
  MG_RULE_LEAVES(D_)
  static constexpr bool pure_rules = true;  // its fixed points settle (core/rewrite.hpp)
  template <class T> static constexpr auto make() {
    auto bool_x = var<"x">.dtype(dtypes::bool_);
    auto cbool = [](bool b) { return op<Ops::CONST>.arg(b).dtype(dtypes::bool_); };
    auto consts = op<Ops::CONST, Ops::STACK>;
    return propagate_invalid.get<T>() + rules(
        // ** self folding **
        // Callbacks written as generic lambdas also rewrite the nodes of a compile-time graph
        // (static/: static kernels run this rule set in constant evaluation); the UOp-only ones are
        // skipped there.
        rule(var<"x"> + 0, [](const auto& x) { return x; }),
        rule(var<"x"> * 1, [](const auto& x) { return x; }),
        rule(ints_bool_weak(var<"x">) ^ 0, [](const auto& x) { return x; }),
        rule(var<"x"> / var<"x">, [](const auto& x) { return x.const_like(1); }),
        rule(var<"x"> / 1, [](const auto& x) { return x; }),
        rule(var<"x"> / -1, [](const UOp& x) { return -x; }),
        rule((var<"x"> ^ var<"y">) ^ var<"y">, [](const UOp& x, const UOp&) { return x; }),
        rule((upat % var<"y">).named("base"_n) % var<"y">, [](const UOp& base, const UOp&) { return base; }),
        // variations of (x%c)+(x//c)*c = x
        rule(op<Ops::ADD>.dtype(dtypes::weakint).named("x"_n), [](const UOp& x) { return fold_add_divmod_recombine(x); }),
        rule(bool_x & cvar<"c">, [](const auto& x, const auto& c) { return c.arg().as_bool() ? x : c; }),
        rule(bool_x | cvar<"c">, [](const auto& x, const auto& c) { return c.arg().as_bool() ? c : x; }),
        rule(op<GroupOp::Idempotent>(var<"x">, var<"x">), [](const auto& x) { return x; }),
        rule(ne(ne(bool_x, true), true), [](const auto& x) { return x; }),
        rule(where(bool_x, cbool(true), cbool(false)), [](const auto& x) { return x; }),
        rule(where(bool_x, cbool(false), cbool(true)), [](const auto& x) { return x.logical_not(); }),
        // CAST(bool -> int) != c: CAST(True) is 1 and CAST(False) is 0
        rule(ne(ints_weak(cast(bool_x)), cvar<"c">), [](const auto& x, const auto& c) {
          return c.arg().py_equals(0) ? x : c.arg().py_equals(1) ? x.logical_not() : x.const_like(true);
        }),
        rule(op<Ops::TRUNC>(ints_bool_weak(var<"x">)), [](const auto& x) { return x; }),
        // ** zero folding **
        rule(var<"x"> < var<"x">, [](const auto& x) { return false_like(x); }),
        rule(var<"x"> % var<"x">, [](const auto& x) { return x.const_like(0); }),
        rule(var<"x"> ^ var<"x">, [](const auto& x) { return x.const_like(0); }),
        rule(var<"x"> & 0, [](const auto& x) { return x.const_like(0); }),
        // (x&mask)>>k -> x>>k when the mask only clears bits below k
        rule((var<"x"> & cvar<"mask">) >> cvar<"k">, [](const UOp& x, const UOp& mask, const UOp& k) -> std::optional<UOp> {
          if (!mask.arg().is_int() || !k.arg().is_int() || k.arg().as_int() < 0 || k.arg().as_int() > 62) return std::nullopt;
          if ((mask.arg().as_int() | ((std::int64_t(1) << k.arg().as_int()) - 1)) != -1) return std::nullopt;
          return x >> k.arg().as_int();
        }),
        rule(ne(ints_bool_weak(var<"x">), var<"x">), [](const auto& x) { return false_like(x); }),
        // ** constant folding **
        rule(op<GroupOp::Unary>(consts).named("a"_n), [](const UOp& a) { return fold_const_alu(a); }),
        rule(op<BinaryNoThreefry>(consts, consts).named("a"_n), [](const UOp& a) { return fold_const_alu(a); }),
        // THREEFRY of constants: evaluate the decomposition (tinygrad simplifies it, which folds it wrong)
        rule(op<Ops::THREEFRY>(cvar<"x">, cvar<"key">).named("a"_n),
             [](const UOp& a, const UOp& x, const UOp& key) { return a.const_like(evaluate(threefry2x32(x, key), {})); }),
        rule(op<GroupOp::Ternary>(consts, consts, consts).named("a"_n), [](const UOp& a) { return fold_const_alu(a); }),
        // bool MUL is AND, ADD/MAX is OR
        rule(var<"x">.dtype(dtypes::bool_) * var<"y">.dtype(dtypes::bool_), [](const auto& x, const auto& y) { return x & y; }),
        rule(var<"x">.dtype(dtypes::bool_) + var<"y">.dtype(dtypes::bool_), [](const auto& x, const auto& y) { return x | y; }),
        rule(maximum(var<"x">.dtype(dtypes::bool_), var<"y">.dtype(dtypes::bool_)), [](const auto& x, const auto& y) { return x | y; }),
        // *** div rules ***
        rule(cvar<"x">.arg(0) * op<Ops::RECIPROCAL>(op<Ops::CONST>.arg(0)), [](const UOp& x) { return x.const_like(std::numeric_limits<double>::quiet_NaN()); }),
        rule((var<"x"> * 0) * op<Ops::RECIPROCAL>(op<Ops::CONST>.arg(0)), [](const UOp& x) { return x.const_like(std::numeric_limits<double>::quiet_NaN()); }),
        rule(var<"x"> * op<Ops::RECIPROCAL>(var<"x">), [](const auto& x) { return x.const_like(1); }),
        rule((var<"x"> * var<"x2">) * op<Ops::RECIPROCAL>(var<"x2">), [](const auto& x, const auto&) { return x; }),
        // x*0 -> 0, but a nan or inf constant times 0 is nan
        rule(var<"x"> * 0, [](const auto& x) {
          const double v = x.op() == Ops::CONST && x.arg().is_float() ? x.arg().as_float() : 0.0;
          return !(v - v == 0) ? x.const_like(std::numeric_limits<double>::quiet_NaN()) : x.const_like(0);  // v - v is nan for nan and inf
        }),
        // *** cast/bitcast ***
        rule(op<Ops::CAST>(cvar<"c">).named("root"_n), [](const auto& root, const auto& c) { return root.const_like(c.arg()); }),
        rule(op<Ops::CAST, Ops::BITCAST>.named("root"_n),
             [](const auto& root) { return root.dtype() == root.src(0).dtype() ? std::optional(root.src(0)) : std::nullopt; }),
        rule(op<Ops::BITCAST>(cvar<"c">).named("root"_n), [](const UOp& root, const UOp& c) { return fold_bitcast(root, c); }),
        // b.cast(a).cast(b) -> b if a keeps every value of b
        rule(cast(cast(var<"x">).named("a"_n)).named("b"_n), [](const auto& b, const auto& a, const auto& x) -> std::optional<std::decay_t<decltype(x)>> {
          if (x.dtype() == b.dtype() && can_lossless_cast(b.dtype(), a.dtype())) return x;
          return std::nullopt;
        }),
        rule(cast(var<"x">, dtypes::bool_), [](const auto& x) { return x.ne(0); }),
        // ** pow **
        rule(alu<Ops::POW>(var<"x">, cvar<"c">), [](const UOp& x, const UOp& c) { return simplify_pow(x, c); }),
        rule(alu<Ops::POW>(cvar<"c">, var<"x">), [](const UOp& c, const UOp& x) -> std::optional<UOp> {
          if (c.arg().py_equals(1)) return c;
          if (c.arg().as_float() > 0) return (x * cmath::log2(c.arg().as_float())).exp2();
          return std::nullopt;
        }),
        // rules for threefry
        rule(cast(var<"x">.dtype(dtypes::uint64) & 0xFFFFFFFF, dtypes::uint32), [](const UOp& x) { return x.cast(dtypes::uint32); }),
        rule(cast((upat.dtype(dtypes::uint64) * (std::int64_t(1) << 32)) | cast(var<"y">.dtype(dtypes::uint32), dtypes::uint64), dtypes::uint32),
             [](const UOp& y) { return y; }),
        rule(((var<"x">.dtype(dtypes::uint64) * (std::int64_t(1) << 32)) | cast(upat.dtype(dtypes::uint32), dtypes::uint64)) / (std::int64_t(1) << 32),
             [](const UOp& x) { return x; }),
        rule(cast((upat.dtype(dtypes::uint64) << 32) | cast(var<"y">.dtype(dtypes::uint32), dtypes::uint64), dtypes::uint32),
             [](const UOp& y) { return y; }),
        rule(((var<"x">.dtype(dtypes::uint64) << 32) | cast(upat.dtype(dtypes::uint32), dtypes::uint64)) >> 32, [](const UOp& x) { return x; }),
        // ** simple where folding **
        rule(where(upat, var<"val">, var<"val">), [](const auto& val) { return val; }),
        rule(where(cvar<"gate">, var<"c0">, var<"c1">), [](const auto& gate, const auto& c0, const auto& c1) -> std::optional<std::decay_t<decltype(c0)>> {
          if (!gate.arg().is_number()) return std::nullopt;
          return gate.arg().as_float() != 0 ? c0 : c1;
        }),
        // a.where(b.where(c, d), d) -> (a & b).where(c, d)
        rule(where(var<"a">, where(var<"b">, var<"c">, var<"d">), var<"d">), [](const auto& a, const auto& b, const auto& c, const auto& d) { return (a & b).where(c, d); }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::symbolic_simple_def<>> symbolic_simple{};

namespace detail {
template <std::same_as<UOp> U> std::vector<int> gep_idx(const U& g) {
  std::vector<int> v;
  for (const Arg& a : g.arg().as_tuple()) v.push_back(int(a.as_int()));
  return v;
}
}  // namespace detail

// ---- gep_pushing: GEP through STACK, GEP, CONST and index ALUs ----
namespace detail {
template <class D_ = void>
struct gep_pushing_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        rule(op<Ops::GEP>(op<Ops::GEP>.named("g2"_n)).named("g1"_n), [](const UOp& g1, const UOp& g2) {
          auto i1 = gep_idx(g1), i2 = gep_idx(g2);
          std::vector<int> r;
          for (int i : i1) r.push_back(i2.at(std::size_t(i)));
          return g2.src(0).gep(r);
        }),
        rule(op<Ops::GEP>(op<Ops::STACK>.named("vec"_n)).named("gep"_n), [](const UOp& gep, const UOp& vec) {
          const auto& idx = gep.arg().as_tuple();
          if (idx.size() == 1) return vec.src(std::size_t(idx[0].as_int()));
          std::vector<UOp> s;
          s.reserve(idx.size());
          for (const Arg& i : idx) s.push_back(vec.src(std::size_t(i.as_int())));
          return UOp(Ops::STACK, gep.dtype(), std::move(s));
        }),
        rule(op<Ops::GEP>(cvar<"c">).named("gep"_n), [](const UOp& gep, const UOp& c) { return gep.const_like(c.arg()); }),
        // GEP on void is skipped
        rule(op<Ops::GEP>(var<"x">.dtype(dtypes::void_)), [](const UOp& x) { return x; }),
        // GEP in order is removed
        rule(op<Ops::GEP>.named("g"_n), [](const UOp& g) -> std::optional<UOp> {
          if (g.dtype().is_ptr) return std::nullopt;
          const auto& idx = g.arg().as_tuple();
          if (int(idx.size()) != g.src(0).dtype().count) return std::nullopt;
          for (std::size_t i = 0; i < idx.size(); ++i) if (idx[i].as_int() != std::int64_t(i)) return std::nullopt;
          return g.src(0);
        }),
        // push all GEPs through ALUs for index
        rule(op<Ops::GEP>(op<GroupOp::ALU | OpSet{Ops::CAST, Ops::BITCAST}>.named("alu"_n)).dtype(dtypes::weakint).named("gep"_n),
             [](const UOp& gep, const UOp& alu) -> std::optional<UOp> {
               if (gep.dtype().is_ptr || alu.dtype().is_ptr) return std::nullopt;
               std::vector<UOp> s;
               for (const UOp& x : alu.src()) s.push_back(x.gep(gep_idx(gep)));
               return UOp(alu.op(), alu.dtype().scalar().vec(gep.dtype().count), std::move(s), alu.arg());
             }),
        // VCAT can't be rendered: a STACK of GEPs
        rule(op<Ops::VCAT>.named("x"_n), [](const UOp& x) -> std::optional<UOp> {
          if (x.dtype().is_ptr) return std::nullopt;
          std::vector<UOp> s;
          for (const UOp& y : x.src()) for (int i = 0; i < y.dtype().count; ++i) s.push_back(y.gep(i));
          return UOp(Ops::STACK, x.dtype(), std::move(s));
        }),
        // STACK of GEPs of the same source
        rule(op<Ops::STACK>(repeat(op<Ops::GEP>(var<"x">))).named("v"_n), [](const UOp& v, const UOp& x) -> std::optional<UOp> {
          std::vector<int> idx;
          for (const UOp& g : v.src()) {
            auto gi = gep_idx(g);
            if (gi.size() != 1) return std::nullopt;
            idx.push_back(gi[0]);
          }
          return x.gep(idx);
        }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::gep_pushing_def<>> gep_pushing{};

// ** commutative flipping (only for index) **
namespace detail {
template <class D_ = void>
struct commutative_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(rule(op<GroupOp::Commutative>.dtype(dtypes::weakint).named("x"_n), [](const UOp& x) -> std::optional<UOp> {
      if (x.nsrc() == 2 && tuplize_cmp(x.src(1), x.src(0)) < 0) return UOp(x.op(), x.dtype(), {x.src(1), x.src(0)}, x.arg(), x.tag());  // x.replace(src=swapped), no vector
      return std::nullopt;
    }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::commutative_def<>> commutative{};

// bounds folding and two-stage constant folding: the index rules of `symbolic` whose callbacks are
// generic, so that static kernels run them on compile-time nodes (with symbolic_simple); `symbolic`
// has them at this place in its order
namespace detail {
template <class D_ = void>
struct symbolic_fold_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    auto x = var<"x">;
    auto c0 = cvar<"c0">;
    auto c1 = cvar<"c1">;
    return rules(
        // ALU/variable with min == max -> CONST
        rule(op<Ops::CMPLT, Ops::CMPNE, Ops::FLOORDIV, Ops::FLOORMOD, Ops::DEFINE_VAR, Ops::BIND, Ops::SPECIAL>.named("x"_n),
             [](const auto& x) { return const_if_fixed(x); }),
        rule(op<Ops::RANGE>(op<Ops::CONST>, etc).named("x"_n), [](const auto& x) { return const_if_fixed(x); }),
        // max folding
        rule(maximum(var<"x">, var<"y">), [](const auto& x, const auto& y) -> std::optional<std::decay_t<decltype(x)>> {
          if (x.vmin() >= y.vmax()) return x;
          if (x.vmax() <= y.vmin()) return y;
          return std::nullopt;
        }),
        // ** two stage ALU folding **
        rule(op<GroupOp::Associative>(any_order(op<GroupOp::Associative>(any_order(var<"x">, cvar<"c1">)), cvar<"c2">)).named("f"_n),
             [](const auto& f, const auto& x, const auto& c1, const auto& c2) -> std::optional<std::decay_t<decltype(f)>> {
               if (f.src(0).op() != f.op()) return std::nullopt;  // both stages are the same op
               return x.alu(f.op(), {fold_alu(f.op(), c1, c2)});
             }),
        rule((c0 + x) < c1, [](const auto& c0, const auto& x, const auto& c1) { return x < fold_sub(c1, c0); }),
        // (x//c1)//c2 -> x//(c1*c2) for c2>0
        rule((x / c1) / cvar<"c2">, [](const auto& x, const auto& c1, const auto& c2) -> std::optional<std::decay_t<decltype(x)>> {
          if (!(c2.vmin() > 0)) return std::nullopt;
          return x.floordiv(fold_alu(Ops::MUL, c1, c2));
        }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::symbolic_fold_def<>> symbolic_fold{};

namespace detail {
template <class D_ = void>
struct symbolic_def {
  MG_RULE_LEAVES(D_)
  static constexpr bool pure_rules = true;  // its fixed points settle (core/rewrite.hpp), and are symbolic_simple's too
  using contains = symbolic_simple_def<>;
  template <class T> static constexpr auto make() {
    auto x = var<"x">;
    auto c0 = cvar<"c0">;
    auto c1 = cvar<"c1">;
    return symbolic_simple.get<T>() + commutative.get<T>() + rules(
        // ** boolean algebra **
        rule(var<"x">.dtype(dtypes::bool_) | ne(var<"x">.dtype(dtypes::bool_), true), [](const UOp& x) { return x.const_like(true); }),
        // ** combine terms **
        rule(x * c0 + x * c1, [](const UOp& x, const UOp& c0, const UOp& c1) { return x * fold_alu(Ops::ADD, c0, c1); }),
        rule((var<"y"> + x * c0) + x * c1, [](const UOp& y, const UOp& x, const UOp& c0, const UOp& c1) { return y + x * fold_alu(Ops::ADD, c0, c1); }),
        rule(x + x * cvar<"c">, [](const UOp& x, const UOp& c) { return x * fold_alu(Ops::ADD, c, c.const_like(1)); }),
        rule((var<"y"> + x) + x * cvar<"c">, [](const UOp& y, const UOp& x, const UOp& c) { return y + x * fold_alu(Ops::ADD, c, c.const_like(1)); }),
        rule((var<"y"> + x * cvar<"c">) + x, [](const UOp& y, const UOp& x, const UOp& c) { return y + x * fold_alu(Ops::ADD, c, c.const_like(1)); }),
        rule(x + x, [](const UOp& x) { return x * 2; }),
        rule((var<"y"> + x) + x, [](const UOp& y, const UOp& x) { return y + fold_alu(Ops::MUL, x, x.const_like(2)); }),
        rule((x * op<Ops::RECIPROCAL>(var<"x2">)) * op<Ops::RECIPROCAL>(var<"x3">), [](const UOp& x, const UOp& x2, const UOp& x3) -> std::optional<UOp> {
          if (x2 == x3) return std::nullopt;
          return x * (x2 * x3).reciprocal();
        }),
        rule(-1 * (x + cvar<"c">), [](const UOp& x, const UOp& c) { return fold_neg(x) + fold_neg(c); }),
        rule(cvar<"y"> * (x.dtype(dtypes::weakint) + cvar<"c">), [](const UOp& y, const UOp& x, const UOp& c) { return fold_alu(Ops::MUL, y, x) + fold_alu(Ops::MUL, y, c); }),
        // ** where folding **
        rule(where(ne(var<"cond">.dtype(dtypes::bool_), true), var<"t">, var<"f">), [](const UOp& cond, const UOp& t, const UOp& f) -> std::optional<UOp> {
          if (is_invalid(f)) return std::nullopt;
          return cond.where(f, t);
        }),
        // an alu of two wheres with the same condition combines if a branch pair is constant
        rule(op<GroupOp::Binary>(where(var<"c">, var<"t">, var<"f">), where(var<"c">, var<"tt">, var<"ff">)).named("alu"_n),
             [](const UOp& alu, const UOp& c, const UOp& t, const UOp& f, const UOp& tt, const UOp& ff) -> std::optional<UOp> {
               if ((t.op() == Ops::CONST && tt.op() == Ops::CONST) || (f.op() == Ops::CONST && ff.op() == Ops::CONST))
                 return c.where(t.alu(alu.op(), {tt}), f.alu(alu.op(), {ff}));
               return std::nullopt;
             }),
        rule((var<"y"> + where(var<"c">, var<"t">, var<"f">)) + where(var<"c">, var<"tt">, var<"ff">),
             [](const UOp& y, const UOp& c, const UOp& t, const UOp& f, const UOp& tt, const UOp& ff) -> std::optional<UOp> {
               if ((t.op() == Ops::CONST && tt.op() == Ops::CONST) || (f.op() == Ops::CONST && ff.op() == Ops::CONST))
                 return y + c.where(t + tt, f + ff);
               return std::nullopt;
             })) + symbolic_fold.get<T>() + rules(
        // ** lt **
        // c0*x<c1 for positive int c0,c1
        rule((c0 * x.dtype(dtypes::weakint)) < c1, [](const UOp& c0, const UOp& x, const UOp& c1) -> std::optional<UOp> {
          if (!c0.arg().is_int() || !c1.arg().is_int()) return std::nullopt;
          std::int64_t a = c0.arg().as_int(), b = c1.arg().as_int();
          if (a > 0 && b > 0) return x < -py_floordiv(-b, a);  // ceil(b/a)
          // c0*x<c1 for negative int c0 and non-positive c1
          if (a < 0 && a != -1 && b <= 0) return (-x) < (-py_floordiv(-b, -a));
          return std::nullopt;
        }),
        // x//d<c -> x<c*d for d>0
        rule((x.dtype(dtypes::weakint) / cvar<"d">) < cvar<"c">, [](const UOp& x, const UOp& d, const UOp& c) -> std::optional<UOp> {
          if (!d.arg().is_int() || !c.arg().is_int() || d.arg().as_int() <= 0) return std::nullopt;
          return x < c.arg().as_int() * d.arg().as_int();
        }),
        // ** move add/mul consts to the end **
        rule((x + c1) + var<"y">, [](const UOp& x, const UOp& c1, const UOp& y) { return (x + y) + c1; }),
        rule((x * c1) * var<"y">, [](const UOp& x, const UOp& c1, const UOp& y) { return (x * y) * c1; }),
        // generic lt folding
        rule(x.dtype(dtypes::weakint) < cvar<"c">, [](const UOp& x, const UOp& c) -> std::optional<UOp> {
          if (!c.arg().is_int() || c.arg().as_int() <= 0) return std::nullopt;
          return lt_folding(x, c.arg().as_int());
        }),
        rule(x.dtype(dtypes::weakint) * -1 < var<"y"> * -1, [](const UOp& x, const UOp& y) { return y < x; }),
        // canonicalize a simplex with positive coefficients > 0; not x < 1 means x > 0
        rule(ne(x.dtype(dtypes::weakint) < 1, true), [](const UOp& x) -> std::optional<UOp> {
          if (auto nx = canonicalize_simplex(x)) return (*nx < 1).ne(true);
          return std::nullopt;
        }),
        // a range mod its own upper bound is the range
        rule(op<Ops::RANGE>(var<"end">, etc).named("r"_n) % var<"end">, [](const UOp& r, const UOp&) { return r; }),
        rule(op<Ops::RANGE>(var<"end">, etc).named("r"_n) / var<"end">, [](const UOp& r, const UOp&) { return r.const_like(0); }),
        // cast folding: an intermediate cast that does not narrow is one cast
        rule(cast(cast(x).named("a"_n)).named("b"_n), [](const UOp& b, const UOp& a, const UOp& x) -> std::optional<UOp> {
          if (can_lossless_cast(x.dtype(), a.dtype())) return x.cast(b.dtype());
          return std::nullopt;
        }),
        rule(cast(ints_weak(cast(ints_weak(x))).named("a"_n)).named("b"_n), [](const UOp& b, const UOp& a, const UOp& x) -> std::optional<UOp> {
          auto d = dtype_bounds(a.dtype());
          if (d.first <= x.vmin() && x.vmax() <= d.second) return x.cast(b.dtype());
          return std::nullopt;
        }),
        // math in int instead of long
        rule(op<GroupOp::Binary>(x.dtype(dtypes::int64), var<"y">.dtype(dtypes::int64)).named("u"_n), [](const UOp& u, const UOp& x, const UOp& y) -> std::optional<UOp> {
          if (u.overflows(dtypes::int32) || x.overflows(dtypes::int32) || y.overflows(dtypes::int32)) return std::nullopt;
          return x.cast(dtypes::int32).alu(u.op(), {y.cast(dtypes::int32)}).cast(u.dtype());
        }),
        rule(sints(cast(x.dtype(dtypes::weakint) + cvar<"c">)).named("cast"_n),
             [](const UOp& cast, const UOp& x, const UOp& c) { return x.cast(cast.dtype()) + c.cast(cast.dtype()); }),
        // only RANGE/IF/STORE/KERNEL have side effects
        rule(op<Ops::AFTER>.named("x"_n), [](const UOp& x) -> std::optional<UOp> {
          constexpr OpSet keep{Ops::RANGE, Ops::STORE, Ops::CALL, Ops::FUNCTION, Ops::BARRIER, Ops::END, Ops::UNROLL, Ops::LINEAR, Ops::STAGE};
          std::vector<UOp> src{x.src(0)};
          auto add = [&](const UOp& u) { if (std::find(src.begin() + 1, src.end(), u) == src.end()) src.push_back(u); };
          for (std::size_t i = 1; i < x.nsrc(); ++i) {
            if (keep.contains(x.src(i).op())) add(x.src(i));
            else for (const UOp& s : x.src(i).src()) add(s);
          }
          return x.replace({.src = std::move(src)});
        }),
        rule(op<Ops::AFTER>(var<"s">), [](const UOp& s) { return s; }),
        // VECTORIZE/CONST
        rule(op<Ops::STACK>(repeat(op<Ops::CONST>)).named("vec"_n), [](const UOp& vec) -> std::optional<UOp> {
          if (vec.nsrc() == 0) return std::nullopt;
          ArgTuple t;
          for (const UOp& s : vec.src()) t.push_back(s.arg());
          return UOp::const_(vec.dtype(), Arg(std::move(t)));
        })) + div_and_mod_symbolic.get<T>() + gep_pushing.get<T>();
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::symbolic_def<>> symbolic{};

// tinygrad's UOp.simplify(): graph_rewrite with the `symbolic` rules. A template, so that a
// translation unit that never simplifies never instantiates the rule set's matchers.
template <std::same_as<UOp> U> U simplify(const U& u) {
  if (u.op() == Ops::CONST) return u;
  return graph_rewrite(u, symbolic);
}

MG_ENGINE_TEMPLATE(UOp simplify<UOp>(const UOp&))

}  // namespace mg
