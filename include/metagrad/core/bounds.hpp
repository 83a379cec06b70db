#pragma once
// vmin/vmax: tinygrad's UOp._min_max, the bounds of every value a node can take. Computed once per
// node and kept in it (like tinygrad's cached_property), by an iterative walk over the sources that
// have no bounds yet, so a 100,000-deep chain needs no deep recursion.
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

// _min_max of one node whose dependencies have bounds
template <class = void> Bounds compute_bounds(const Node* n) {
  const Ops op = n->op;
  const DType dt = n->dtype;
  auto B = [&](std::size_t i) -> const Bounds& { return cached_bounds(n->src[i].node()); };
  if (GroupOp::Binary.contains(op) && !dt.is_float() && n->src.size() == 2) {
    const auto& [a0, a1] = B(0);
    const auto& [b0, b1] = B(1);
    const bool ints = a0.is_int() && a1.is_int() && b0.is_int() && b1.is_int();
    switch (op) {
      case Ops::ADD: return {bound_add(a0, b0, false), bound_add(a1, b1, true)};
      case Ops::SUB: return {bound_add(a0, -b1, false), bound_add(a1, -b0, true)};
      case Ops::MUL: {
        SymVal v[4] = {a0 * b0, a0 * b1, a1 * b0, a1 * b1};
        return {min(min(v[0], v[1]), min(v[2], v[3])), max(max(v[0], v[1]), max(v[2], v[3]))};
      }
      case Ops::SHL: if (b0 == b1 && ints) return {shl(a0, b0), shl(a1, b0)}; break;
      case Ops::SHR: if (b0 == b1 && ints) return {shr(a0, b0), shr(a1, b0)}; break;
      case Ops::CMOD:
        if (!ints) break;
        if (b0 == b1 && b0 > 0) {
          const SymVal& c = b0;
          return {a0 > 0 ? SymVal(0) : (a0 <= 0 && a0 > -c) ? a0 : -(b1 - 1), a1 < 0 ? SymVal(0) : (a1 >= 0 && a1 < c) ? a1 : c - 1};
        }
        if (b0 > 0) return a0 >= 0 ? Bounds{0, b1 - 1} : a1 <= 0 ? Bounds{-(b1 - 1), 0} : Bounds{-(b1 - 1), b1 - 1};
        if (b1 < 0) return a0 >= 0 ? Bounds{0, -b0 - 1} : a1 <= 0 ? Bounds{-(-b0 - 1), 0} : Bounds{-(-b0 - 1), -b0 - 1};
        break;
      case Ops::CDIV:
        if (ints && b0 * b1 > 0) {
          SymVal v[4] = {cdiv(a0, b0), cdiv(a0, b1), cdiv(a1, b0), cdiv(a1, b1)};
          return {min(min(v[0], v[1]), min(v[2], v[3])), max(max(v[0], v[1]), max(v[2], v[3]))};
        }
        break;
      case Ops::FLOORDIV:
        if (!ints) break;
        if (a0 > a1) return {0, 0};  // an empty numerator range (a RANGE with end 0)
        if (b0 * b1 > 0) {
          SymVal v[4] = {floordiv(a0, b0), floordiv(a0, b1), floordiv(a1, b0), floordiv(a1, b1)};
          return {min(min(v[0], v[1]), min(v[2], v[3])), max(max(v[0], v[1]), max(v[2], v[3]))};
        }
        break;
      case Ops::FLOORMOD:
        if (!ints) break;
        if (a0 > a1) return {0, 0};
        if (b0 == b1 && b0 > 0)
          return (!a0.is_inf() && !a1.is_inf() && floordiv(a0, b0) == floordiv(a1, b0)) ? Bounds{floormod(a0, b0), floormod(a1, b0)}
                                                                                       : Bounds{0, b0 - 1};
        if (b0 == b1 && b0 < 0)
          return (!a0.is_inf() && !a1.is_inf() && floordiv(a0, b0) == floordiv(a1, b0)) ? Bounds{floormod(a0, b0), floormod(a1, b0)}
                                                                                       : Bounds{b0 + 1, 0};
        if (b0 > 0) return {0, b1 - 1};
        if (b1 < 0) return {b0 + 1, 0};
        break;
      case Ops::XOR: if (b0 == -1 && b1 == -1 && a0.is_int() && a1.is_int()) return {bitnot(a1), bitnot(a0)}; break;
      case Ops::MAX: return {max(a0, b0), max(a1, b1)};
      case Ops::CMPLT: return {SymVal(a1 < b0), SymVal(a0 < b1)};
      case Ops::CMPNE: return {SymVal(a1 < b0 || b1 < a0), SymVal(!(a0 == a1 && a1 == b0 && b0 == b1))};
      case Ops::OR: if (dt == dtypes::bool_) return {SymVal(bool(a0) || bool(b0)), SymVal(bool(a1) || bool(b1))}; break;
      case Ops::AND:
        if (dt.is_int() && b0 == b1 && b0 >= 0) return {0, a0 < 0 ? b1 : min(a1, b1)};
        if (dt == dtypes::bool_) return {SymVal(bool(a0) && bool(b0)), SymVal(bool(a1) && bool(b1))};
        break;
      default: break;
    }
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
