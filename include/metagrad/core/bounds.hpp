#pragma once
// vmin/vmax: tinygrad's UOp._min_max, the bounds of every value a node can take. Computed once per
// node and kept in it (like tinygrad's cached_property), by an iterative walk over the sources that
// have no bounds yet, so a 100,000-deep chain needs no deep recursion.
#include <optional>
#include <utility>
#include <vector>

#include "uop.hpp"

namespace mg {
namespace detail {

using Bounds = std::pair<SymVal, SymVal>;

// a constant's value as tinygrad's Python sees it (uint64 args hold their bit pattern)
inline SymVal symval_of(const Arg& a, DType dt) {
  if (a.is_bool()) return SymVal(a.as_bool());
  if (a.is_float()) return SymVal(a.as_float());
  if (a.is_int()) {
    std::int64_t v = a.as_int();
    if (dt.scalar() == dtypes::uint64 && v < 0) return SymVal::from_i128(SymVal::i128(std::uint64_t(v)));
    return SymVal(v);
  }
  throw Error("vmin/vmax: arg " + a.repr() + " is not a number");
}
// tinygrad's dtype.min / dtype.max; weakint's (±2^799 there) are infinite here
inline Bounds dtype_bounds(DType dt) {
  DType s = dt.scalar();
  if (s.is_float()) return {SymVal(s.fmin()), SymVal(s.fmax())};
  if (s == dtypes::weakint) return {SymVal::neg_inf(), SymVal::pos_inf()};
  if (s.is_bool()) return {SymVal(0), SymVal(1)};
  if (s.is_int()) return {SymVal(s.imin()), SymVal::from_i128(SymVal::i128(s.umax()))};
  return {SymVal::neg_inf(), SymVal::pos_inf()};
}
// a sum of lower (or upper) bounds: +inf + -inf leaves the side unbounded
inline SymVal bound_add(const SymVal& a, const SymVal& b, bool upper) {
  SymVal r = a + b;
  if (r.is_float() && r.as_double() != r.as_double()) return upper ? SymVal::pos_inf() : SymVal::neg_inf();
  return r;
}
inline const Bounds& cached_bounds(const Node* n) { return *n->bounds.load(std::memory_order_acquire); }
inline bool has_bounds(const Node* n) { return n->bounds.load(std::memory_order_acquire) != nullptr; }

// which sources _min_max reads for this node: f(source) for each, until f returns false; false then
template <class F> bool all_bounds_deps(const Node* n, F&& f) {
  auto s = [&](std::size_t i) { return i >= n->src.size() || f(n->src[i].node()); };
  const Ops op = n->op;
  if (GroupOp::Binary.contains(op) && !n->dtype.is_float()) return s(0) && s(1);
  if (op == Ops::WHERE) return s(1) && s(2);
  if (op == Ops::BIND || op == Ops::RANGE || op == Ops::SPECIAL || op == Ops::GEP || op == Ops::CAST) return s(0);
  if (op == Ops::UNROLL || op == Ops::STACK)
    for (std::size_t i = 0; i < n->src.size(); ++i) if (!s(i)) return false;
  return true;
}

// The bounds of a binary op on two sources whose bounds are int64, as the SymVal arithmetic below computes
// them, in int64 (overflow-checked): index math's usual case. nullopt for the other ops and cases
// (an overflow, a divisor range with 0 or -1 in it), which go on to the SymVal arithmetic.
template <class = void>
std::optional<Bounds> int64_binary_bounds(Ops op, const SymVal& a0, const SymVal& a1, const SymVal& b0, const SymVal& b1) {
  if (!a0.fits_int64() || !a1.fits_int64() || !b0.fits_int64() || !b1.fits_int64()) return std::nullopt;
  const std::int64_t x0 = a0.clamped_int64(), x1 = a1.clamped_int64(), y0 = b0.clamped_int64(), y1 = b1.clamped_int64();
  auto of = [](std::int64_t lo, std::int64_t hi) { return Bounds{SymVal(lo), SymVal(hi)}; };
  auto min4 = [](const std::int64_t* v) { return std::min(std::min(v[0], v[1]), std::min(v[2], v[3])); };
  auto max4 = [](const std::int64_t* v) { return std::max(std::max(v[0], v[1]), std::max(v[2], v[3])); };
  switch (op) {
    case Ops::ADD: {
      std::int64_t lo, hi;
      if (__builtin_add_overflow(x0, y0, &lo) || __builtin_add_overflow(x1, y1, &hi)) return std::nullopt;
      return of(lo, hi);
    }
    case Ops::MUL: {
      std::int64_t v[4];
      if (__builtin_mul_overflow(x0, y0, &v[0]) || __builtin_mul_overflow(x0, y1, &v[1]) || __builtin_mul_overflow(x1, y0, &v[2]) ||
          __builtin_mul_overflow(x1, y1, &v[3]))
        return std::nullopt;
      return of(min4(v), max4(v));
    }
    case Ops::FLOORDIV: {
      if (x0 > x1) return of(0, 0);
      if (!((y0 > 0 && y1 > 0) || (y0 < 0 && y1 < 0)) || y0 == -1 || y1 == -1) return std::nullopt;
      const std::int64_t v[4] = {py_floordiv(x0, y0), py_floordiv(x0, y1), py_floordiv(x1, y0), py_floordiv(x1, y1)};
      return of(min4(v), max4(v));
    }
    case Ops::FLOORMOD:
      if (x0 > x1) return of(0, 0);
      if (y0 == y1 && y0 > 0)
        return py_floordiv(x0, y0) == py_floordiv(x1, y0) ? of(py_floormod(x0, y0), py_floormod(x1, y0)) : of(0, y0 - 1);
      if (y0 == y1 && y0 < -1)
        return py_floordiv(x0, y0) == py_floordiv(x1, y0) ? of(py_floormod(x0, y0), py_floormod(x1, y0)) : of(y0 + 1, 0);
      if (y0 == y1) return std::nullopt;  // (0, or -1: the SymVal path)
      if (y0 > 0) return of(0, y1 - 1);
      if (y1 < 0) return of(y0 + 1, 0);
      return std::nullopt;
    case Ops::MAX: return of(std::max(x0, y0), std::max(x1, y1));
    case Ops::CMPLT: return of(x1 < y0, x0 < y1);
    case Ops::CMPNE: return of(x1 < y0 || y1 < x0, !(x0 == x1 && x1 == y0 && y0 == y1));
    default: return std::nullopt;
  }
}

// The same bounds in SymVal arithmetic (tinygrad's _min_max for a binary op of a non-float dtype), for
// any bounds; nullopt where _min_max falls back to the dtype's range
template <class = void>
std::optional<Bounds> symval_binary_bounds(Ops op, DType dt, const SymVal& a0, const SymVal& a1, const SymVal& b0, const SymVal& b1) {
  const bool ints = a0.is_int() && a1.is_int() && b0.is_int() && b1.is_int();
  switch (op) {
    case Ops::ADD: return Bounds{bound_add(a0, b0, false), bound_add(a1, b1, true)};
    case Ops::SUB: return Bounds{bound_add(a0, -b1, false), bound_add(a1, -b0, true)};
    case Ops::MUL: {
      SymVal v[4] = {a0 * b0, a0 * b1, a1 * b0, a1 * b1};
      return Bounds{min(min(v[0], v[1]), min(v[2], v[3])), max(max(v[0], v[1]), max(v[2], v[3]))};
    }
    case Ops::SHL: if (b0 == b1 && ints) return Bounds{shl(a0, b0), shl(a1, b0)}; break;
    case Ops::SHR: if (b0 == b1 && ints) return Bounds{shr(a0, b0), shr(a1, b0)}; break;
    case Ops::CMOD:
      if (!ints) break;
      if (b0 == b1 && b0 > 0) {
        const SymVal& c = b0;
        return Bounds{a0 > 0 ? SymVal(0) : (a0 <= 0 && a0 > -c) ? a0 : -(b1 - 1), a1 < 0 ? SymVal(0) : (a1 >= 0 && a1 < c) ? a1 : c - 1};
      }
      if (b0 > 0) return a0 >= 0 ? Bounds{0, b1 - 1} : a1 <= 0 ? Bounds{-(b1 - 1), 0} : Bounds{-(b1 - 1), b1 - 1};
      if (b1 < 0) return a0 >= 0 ? Bounds{0, -b0 - 1} : a1 <= 0 ? Bounds{-(-b0 - 1), 0} : Bounds{-(-b0 - 1), -b0 - 1};
      break;
    case Ops::CDIV:
      if (ints && b0 * b1 > 0) {
        SymVal v[4] = {cdiv(a0, b0), cdiv(a0, b1), cdiv(a1, b0), cdiv(a1, b1)};
        return Bounds{min(min(v[0], v[1]), min(v[2], v[3])), max(max(v[0], v[1]), max(v[2], v[3]))};
      }
      break;
    case Ops::FLOORDIV:
      if (!ints) break;
      if (a0 > a1) return Bounds{0, 0};  // an empty numerator range (a RANGE with end 0)
      if (b0 * b1 > 0) {
        SymVal v[4] = {floordiv(a0, b0), floordiv(a0, b1), floordiv(a1, b0), floordiv(a1, b1)};
        return Bounds{min(min(v[0], v[1]), min(v[2], v[3])), max(max(v[0], v[1]), max(v[2], v[3]))};
      }
      break;
    case Ops::FLOORMOD:
      if (!ints) break;
      if (a0 > a1) return Bounds{0, 0};
      if (b0 == b1 && b0 > 0)
        return (!a0.is_inf() && !a1.is_inf() && floordiv(a0, b0) == floordiv(a1, b0)) ? Bounds{floormod(a0, b0), floormod(a1, b0)}
                                                                                     : Bounds{0, b0 - 1};
      if (b0 == b1 && b0 < 0)
        return (!a0.is_inf() && !a1.is_inf() && floordiv(a0, b0) == floordiv(a1, b0)) ? Bounds{floormod(a0, b0), floormod(a1, b0)}
                                                                                     : Bounds{b0 + 1, 0};
      if (b0 > 0) return Bounds{0, b1 - 1};
      if (b1 < 0) return Bounds{b0 + 1, 0};
      break;
    case Ops::XOR: if (b0 == -1 && b1 == -1 && a0.is_int() && a1.is_int()) return Bounds{bitnot(a1), bitnot(a0)}; break;
    case Ops::MAX: return Bounds{max(a0, b0), max(a1, b1)};
    case Ops::CMPLT: return Bounds{SymVal(a1 < b0), SymVal(a0 < b1)};
    case Ops::CMPNE: return Bounds{SymVal(a1 < b0 || b1 < a0), SymVal(!(a0 == a1 && a1 == b0 && b0 == b1))};
    case Ops::OR: if (dt == dtypes::bool_) return Bounds{SymVal(bool(a0) || bool(b0)), SymVal(bool(a1) || bool(b1))}; break;
    case Ops::AND:
      if (dt.is_int() && b0 == b1 && b0 >= 0) return Bounds{0, a0 < 0 ? b1 : min(a1, b1)};
      if (dt == dtypes::bool_) return Bounds{SymVal(bool(a0) && bool(b0)), SymVal(bool(a1) && bool(b1))};
      break;
    default: break;
  }
  return std::nullopt;
}

// _min_max of one node whose dependencies have bounds
template <class = void> Bounds compute_bounds(const Node* n) {
  const Ops op = n->op;
  const DType dt = n->dtype;
  auto B = [&](std::size_t i) -> const Bounds& { return cached_bounds(n->src[i].node()); };
  if (GroupOp::Binary.contains(op) && !dt.is_float() && n->src.size() == 2) {
    const auto& [a0, a1] = B(0);
    const auto& [b0, b1] = B(1);
    if (auto r = int64_binary_bounds(op, a0, a1, b0, b1)) return *r;
    if (auto r = symval_binary_bounds(op, dt, a0, a1, b0, b1)) return *r;
  }
  // floats have NaN, and transcendental decompositions use explicit NaN: no WHERE bounds for them
  if (op == Ops::WHERE && dt.is_int() && n->src.size() == 3) return {min(B(1).first, B(2).first), max(B(1).second, B(2).second)};
  if (op == Ops::PARAM && n->arg.is<ParamArg>() && n->arg.as_param().vmin_vmax)
    return {SymVal(n->arg.as_param().vmin_vmax->first), SymVal(n->arg.as_param().vmin_vmax->second)};
  if (op == Ops::DEFINE_VAR && n->arg.is_tuple() && n->arg.as_tuple().size() >= 3)
    return {symval_of(n->arg[1], dt), symval_of(n->arg[2], dt)};
  if ((op == Ops::RANGE || op == Ops::SPECIAL) && !n->src.empty()) return {0, bound_add(B(0).second, SymVal(-1), true)};
  if (op == Ops::BIND && !n->src.empty()) return B(0);
  if ((op == Ops::UNROLL || op == Ops::STACK) && !n->src.empty()) {
    Bounds r = B(0);
    for (std::size_t i = 1; i < n->src.size(); ++i) r = {min(r.first, B(i).first), max(r.second, B(i).second)};
    return r;
  }
  if (op == Ops::CONST && !n->arg.is<Invalid>()) {
    if (n->arg.is_tuple()) {  // a vector constant
      const auto& t = n->arg.as_tuple();
      if (t.empty()) return dtype_bounds(dt);
      Bounds r{symval_of(t[0], dt), symval_of(t[0], dt)};
      for (const Arg& a : t) r = {min(r.first, symval_of(a, dt)), max(r.second, symval_of(a, dt))};
      return r;
    }
    SymVal v = symval_of(n->arg, dt);
    return {v, v};
  }
  if (op == Ops::GEP && !n->src.empty()) return B(0);
  // CAST to bool or unsigned is not monotone
  if (op == Ops::CAST && !n->src.empty() && dt.count == 1 && (dt.is_float() || dt == dtypes::weakint || (dt.is_int() && !dt.is_unsigned()))) {
    Bounds d = dtype_bounds(dt);
    return {max(d.first, B(0).first), min(B(0).second, d.second)};
  }
  return dtype_bounds(dt);
}

template <class = void> void set_bounds(const Node* n) {
  const Bounds* b = BoundsPool::make(compute_bounds(n));
  const Bounds* expected = nullptr;  // another thread may have got there first: keep theirs
  if (!n->bounds.compare_exchange_strong(expected, b, std::memory_order_acq_rel)) BoundsPool::destroy(b);
}
template <class = void> const Bounds& bounds_of(const Node* root) {
  if (has_bounds(root)) return cached_bounds(root);
  // the usual case, with no stack to allocate: what it reads has bounds already
  if (all_bounds_deps(root, [](const Node* d) { return has_bounds(d); })) set_bounds(root);
  else {
    std::vector<const Node*> stack{root};
    while (!stack.empty()) {
      const Node* n = stack.back();
      if (has_bounds(n)) { stack.pop_back(); continue; }
      const std::size_t at = stack.size();
      all_bounds_deps(n, [&](const Node* d) {
        if (!has_bounds(d)) stack.push_back(d);
        return true;
      });
      if (stack.size() != at) continue;
      stack.pop_back();
      set_bounds(n);
    }
  }
  return cached_bounds(root);
}

}  // namespace detail

template <class> const std::pair<SymVal, SymVal>& UOp::min_max() const { return detail::bounds_of(checked()); }
template <class> bool UOp::overflows(DType dt) const {
  auto d = detail::dtype_bounds(dt);
  return vmin() < d.first || d.second < vmax();
}

}  // namespace mg
