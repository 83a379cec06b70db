#pragma once
// tinygrad's get_late_rewrite_patterns (uop/decompositions.py): FLOORDIV/FLOORMOD become the C-style
// CDIV/CMOD every backend has, and ops the backend lacks are rewritten into ones it has (MAX as
// CMPLT+WHERE, THREEFRY as 32-bit ALU); ops it has replace longer forms (SHL/SHR for powers of two,
// NEG, SUB, CMPEQ, MULACC, FDIV). The ctx is the Target: each rule asks it whether the op exists, so
// the rule set is one compiled type for every target.
#include <bit>
#include <optional>

#include "../pattern/graph_rewrite.hpp"
#include "../symbolic/decompositions.hpp"
#include "target.hpp"

namespace mg {

namespace detail {
// log2(c) for a power of two c >= 2, else 0 (tinygrad's powers_of_two.get(c, 0))
template <class = void> int pow2_log(const Arg& c) {
  if (!c.is_int()) return 0;
  const std::int64_t v = c.as_int();
  return v > 1 && std::has_single_bit(std::uint64_t(v)) ? std::countr_zero(std::uint64_t(v)) : 0;
}
template <class = void> bool same_sign_division(const UOp& a, const UOp& b) {
  return (a.vmin() >= 0 && b.vmin() > 0) || (a.vmax() <= 0 && b.vmax() < 0);
}
template <class = void> UOp floordiv_to_idiv(const UOp& a, const UOp& b) {
  if (same_sign_division(a, b)) return a.cdiv(b);
  return a.cdiv(b) - (a.cmod(b).ne(a.const_like(0)) & (a < a.const_like(0)).ne(b < b.const_like(0))).cast(a.dtype());
}
template <class = void> UOp floormod_to_mod(const UOp& a, const UOp& b) {
  if (same_sign_division(a, b)) return a.cmod(b);
  const UOp r = a.cmod(b);
  // where instead of mul, so it is not fused into MULACC
  return r + (r.ne(r.const_like(0)) & (a < a.const_like(0)).ne(b < b.const_like(0))).where(b, b.const_like(0));
}

// m, s with x//d == (x*m) >> s for every 0 <= x <= vmax, d > 0 (Hacker's Delight, chapter 10)
template <class = void> std::pair<unsigned __int128, int> magicgu(std::uint64_t vmax, std::uint64_t d) {
  using u128 = unsigned __int128;
  const u128 nc = u128((vmax + 1) / d) * d - 1;
  const int nbits = vmax ? 64 - std::countl_zero(vmax) : 0;
  for (int s = 0; s <= 2 * nbits && s < 127; ++s) {
    const u128 p = u128(1) << s;
    if (p > nc * u128(d - 1 - std::uint64_t((p - 1) % d))) return {(p + d - 1 - (p - 1) % d) / d, s};
  }
  throw Error("magicgu: no magic number for division by " + std::to_string(d));
}
// m*v within [lo, hi], without overflow
template <class = void> bool mul_in(unsigned __int128 m, std::int64_t v, std::int64_t lo, std::uint64_t hi) {
  if (m >> 64) return v == 0;
  __int128 r;
  if (__builtin_mul_overflow(__int128(std::uint64_t(m)), __int128(v), &r)) return false;
  return r >= lo && r <= __int128(hi);
}
// tinygrad's fast_idiv: x // d as a multiply and a shift (x >= 0, or unsigned)
template <class = void> std::optional<UOp> fast_idiv(const UOp& x, std::int64_t d, bool dont_cast = false) {
  const DType dt = x.dtype().scalar();
  const bool is_unsigned = x.vmin() >= 0 || dt.is_unsigned();
  const std::int64_t vmin = std::max(x.vmin().clamped_int64(), dt.imin());
  const std::int64_t vmax = std::min<std::int64_t>(x.vmax().clamped_int64(), dt.imax());
  if (vmin > -d && vmax < d) return x.const_like(0);
  const auto [m, s] = magicgu(std::uint64_t(std::max(vmax, vmin == INT64_MIN ? INT64_MAX : -vmin)), std::uint64_t(d));
  auto build = [&](const UOp& xx) {
    UOp r = (xx * xx.const_like(std::int64_t(std::uint64_t(m)))) >> xx.const_like(s);
    return r;
  };
  if (!(m >> 64) && mul_in(m, vmin, dt.imin(), dt.umax()) && mul_in(m, vmax, dt.imin(), dt.umax())) {
    const UOp r = build(x);
    return is_unsigned ? r : r + (x < x.const_like(0)).where(x.const_like(1), x.const_like(0));
  }
  // powers of two in d shift x smaller first (CDIV: the recursion assumes truncation)
  if (const std::int64_t f = d & -d; f > 1)
    if (auto r = fast_idiv(x.cdiv(x.const_like(f)), d / f, true)) return r;
  if (dont_cast || dt.info().bitsize >= 64) return std::nullopt;
  // compute in the 64-bit type of the same signedness
  const DType next = dt.is_unsigned() ? dtypes::uint64 : dtypes::int64;
  if (!(m >> 64) && mul_in(m, vmin, next.imin(), next.umax()) && mul_in(m, vmax, next.imin(), next.umax())) {
    const UOp r = build(x.cast(next)).cast(x.dtype());
    return is_unsigned ? r : r + (x < x.const_like(0)).where(x.const_like(1), x.const_like(0));
  }
  return std::nullopt;
}

template <class D_ = void>
struct late_rewrite_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    auto ints = [](auto p) {
      return p.dtype(dtypes::int8, dtypes::int16, dtypes::int32, dtypes::int64, dtypes::uint8, dtypes::uint16, dtypes::uint32, dtypes::uint64);
    };
    auto sints = [](auto p) { return p.dtype(dtypes::int8, dtypes::int16, dtypes::int32, dtypes::int64); };
    auto uints = [](auto p) { return p.dtype(dtypes::uint8, dtypes::uint16, dtypes::uint32, dtypes::uint64); };
    auto lnot = [](auto p) { return ne(p, true); };
    using O = std::optional<UOp>;
    return rules(
        rule(var<"a"> / var<"b">, [](const UOp& a, const UOp& b) { return floordiv_to_idiv(a, b); }),
        // FLOORMOD by 2**y is x & (2**y-1), right for any sign in two's complement
        rule(ints(var<"x">) % cvar<"c">, [](const Target& t, const UOp& x, const UOp& c) -> O {
          if (!t.ops.contains(Ops::AND) || !pow2_log(c.arg())) return std::nullopt;
          return x & (c.arg().as_int() - 1);
        }),
        rule(var<"a"> % var<"b">, [](const UOp& a, const UOp& b) { return floormod_to_mod(a, b); }),
        rule(op<Ops::THREEFRY>(var<"x">, var<"key">).dtype(dtypes::uint64), [](const Target& t, const UOp& x, const UOp& key) -> O {
          if (t.ops.contains(Ops::THREEFRY)) return std::nullopt;
          return threefry2x32(x, key);
        }),
        // MAX as CMPLT + WHERE
        rule(op<Ops::MAX>.named("m"_n), [](const Target& t, const UOp& m) -> O {
          if (t.ops.contains(Ops::MAX) || !t.ops.contains(Ops::CMPLT)) return std::nullopt;
          return (m.src(0) < m.src(1)).where(m.src(1), m.src(0));
        }),
        rule(lnot(var<"x">.dtype(dtypes::bool_)) & lnot(var<"y">.dtype(dtypes::bool_)), [](const Target& t, const UOp& x, const UOp& y) -> O {
          if (!t.ops.contains(Ops::OR)) return std::nullopt;
          return (x | y).logical_not();
        }),
        // MUL and CDIV by 2**v as shifts
        rule(ints(var<"x">) * cvar<"c">, [](const Target& t, const UOp& x, const UOp& c) -> O {
          const int v = pow2_log(c.arg());
          if (!t.ops.contains(Ops::SHL) || !v) return std::nullopt;
          return x << x.const_like(v);
        }),
        rule(op<Ops::CDIV>(uints(var<"x">), cvar<"c">), [](const Target& t, const UOp& x, const UOp& c) -> O {
          const int v = pow2_log(c.arg());
          if (!t.ops.contains(Ops::SHR) || !v) return std::nullopt;
          return x >> x.const_like(v);
        }),
        // signed CDIV (truncating) by 2**v: (x + (x<0 ? c-1 : 0)) >> v
        rule(op<Ops::CDIV>(sints(var<"x">), cvar<"c">), [](const Target& t, const UOp& x, const UOp& c) -> O {
          const int v = pow2_log(c.arg());
          if (!t.ops.contains(Ops::SHR) || !v) return std::nullopt;
          UOp l = x < x.const_like(0);
          if (l.vmin() == l.vmax()) l = l.const_like(Arg(l.vmin() != 0));
          return (x + l.where(c - 1, x.const_like(0))) >> x.const_like(v);
        }),
        // non-powers of two: a magic multiply, on inputs known non-negative (the signed form is unreliable)
        rule(op<Ops::CDIV>(ints(var<"x">), cvar<"d">), [](const Target& t, const UOp& x, const UOp& d) -> O {
          if (!t.ops.contains(Ops::SHR) || t.disable_fast_idiv || !d.arg().is_int() || d.arg().as_int() <= 0) return std::nullopt;
          if (!(x.vmin() >= 0 || x.dtype().is_unsigned())) return std::nullopt;
          return fast_idiv(x, d.arg().as_int());
        }),
        // CMOD -> x - d*CDIV(x, d), so the CDIV can take the fast path
        rule(op<Ops::CMOD>(ints(var<"x">), var<"d">), [](const Target& t, const UOp& x, const UOp& d) -> O {
          if (!t.ops.contains(Ops::SHR) || t.disable_fast_idiv || !(x.vmin() >= 0 || x.dtype().is_unsigned())) return std::nullopt;
          return x - d * x.cdiv(d);
        }),
        rule(var<"x"> * -1, [](const Target& t, const UOp& x) -> O {
          if (!t.ops.contains(Ops::NEG)) return std::nullopt;
          return x.alu(Ops::NEG);
        }),
        rule(var<"x"> + op<Ops::NEG>(var<"y">), [](const Target& t, const UOp& x, const UOp& y) -> O {
          if (!t.ops.contains(Ops::NEG) || !t.ops.contains(Ops::SUB)) return std::nullopt;
          return x.sub(y);
        }),
        // late because simplex wants comparisons in one form
        rule(lnot(sints(var<"x">) < sints(cvar<"c">)), [](const Target& t, const UOp& x, const UOp& c) -> O {
          if (!t.ops.contains(Ops::CMPLT)) return std::nullopt;
          return (c - 1) < x;
        }),
        rule(lnot(sints(cvar<"c">) < sints(var<"x">)), [](const Target& t, const UOp& c, const UOp& x) -> O {
          if (!t.ops.contains(Ops::CMPLT)) return std::nullopt;
          return x < (c + 1);
        }),
        rule((sints(var<"x">) * -1) < (sints(var<"y">) * cvar<"c">), [](const Target& t, const UOp& x, const UOp& y, const UOp& c) -> O {
          if (!t.ops.contains(Ops::CMPLT)) return std::nullopt;
          return (y * (-c)) < x;
        }),
        rule((sints(var<"x">) * -1) < cvar<"c">, [](const Target& t, const UOp& x, const UOp& c) -> O {
          if (!t.ops.contains(Ops::CMPLT)) return std::nullopt;
          return (-c) < x;
        }),
        rule((cvar<"c1"> < sints(var<"x">)) & (sints(var<"x">) < cvar<"c2">), [](const Target& t, const UOp& c1, const UOp& x, const UOp& c2) -> O {
          if (!t.ops.contains(Ops::CMPLT) || !c1.arg().is_int() || !c2.arg().is_int() || c1.arg().as_int() + 1 != c2.arg().as_int() - 1)
            return std::nullopt;
          return x.cmpeq(c1 + 1);  // (c-1)<x & x<(c+1) -> x==c
        }),
        rule(lnot(ne(var<"x">, var<"y">)), [](const Target& t, const UOp& x, const UOp& y) -> O {
          if (!t.ops.contains(Ops::CMPEQ)) return std::nullopt;
          return x.cmpeq(y);
        }),
        rule(var<"a"> * var<"b"> + var<"c">, [](const Target& t, const UOp& a, const UOp& b, const UOp& c) -> O {
          if (!t.ops.contains(Ops::MULACC)) return std::nullopt;
          return a.mulacc(b, c);
        }),
        // also (x << n) + c, since MUL may have become SHL first
        rule(op<Ops::SHL>(var<"x">, cvar<"n">) + var<"c">, [](const Target& t, const UOp& x, const UOp& n, const UOp& c) -> O {
          if (!t.ops.contains(Ops::MULACC) || !t.ops.contains(Ops::SHL)) return std::nullopt;
          return x.mulacc(x.const_like(std::int64_t(1) << n.arg().as_int()), c);
        }),
        // backends with FDIV: a*(1/b) -> a/b
        rule(op<Ops::RECIPROCAL>(var<"x">), [](const Target& t, const UOp& x) -> O {
          if (!t.ops.contains(Ops::FDIV)) return std::nullopt;
          return x.const_like(1).fdiv(x);
        }),
        rule(var<"a">.dtype(dtypes::float16, dtypes::bfloat16, dtypes::float32, dtypes::float64) * op<Ops::FDIV>(cvar<"one">, var<"b">),
             [](const Target& t, const UOp& a, const UOp& one, const UOp& b) -> O {
               if (!t.ops.contains(Ops::FDIV) || !one.arg().py_equals(1)) return std::nullopt;
               return a.fdiv(b);
             }));
  }
};
}  // namespace detail

inline constexpr LazyRules<detail::late_rewrite_def<>> pm_late_rewrite{};

}  // namespace mg
