#pragma once
// div_and_mod_symbolic: tinygrad's divandmod.py — folding of // and % on index (weakint) expressions.
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <span>
#include <utility>

#include "../core/small_vec.hpp"
#include "../core/thread_cache.hpp"
#include "../core/uop.hpp"
#include "../pattern/rules.hpp"

namespace mg {
template <std::same_as<UOp> U> U simplify(const U& u);  // symbolic.hpp

namespace detail {

// The lists fold_divmod_general builds on every call hold the terms of one sum: a few, on the stack.
template <class T> using TermVec = SmallVec<T, 8>;
// the terms of a sum as factor * term, the factor being the term's const_factor (fold_divmod_general's
// split), appended to terms and factors; false when a term has none
template <class Range, std::same_as<UOp> U>
bool factored_terms(const Range& uops, TermVec<U>& terms, TermVec<std::int64_t>& factors) {
  for (const UOp& u : uops) {
    const std::int64_t f = u.const_factor();
    auto t = f == 0 ? std::optional<UOp>{} : u.divides(f);
    if (!t) return false;
    terms.push_back(std::move(*t)), factors.push_back(f);
  }
  return true;
}
// the residue of f modulo c nearest zero, the positive one on a tie (fold_divmod_congruence's first choice)
inline std::int64_t nearest_residue(std::int64_t f, std::int64_t c) {
  const std::int64_t r = py_floormod(f, c);
  return std::abs(r) <= std::abs(r - c) ? r : r - c;
}

// cancel_divmod's test: every x in [x_min, x_max] over every y in [y_min, y_max] (a range without 0) has the
// same floor quotient, the one returned (when it fits int64). In int64 when the bounds fit, as they
// usually do; else on SymVals, where the infinite bounds of an unbounded range never qualify.
template <class = void>
std::optional<std::int64_t> one_quotient(const SymVal& x_min, const SymVal& x_max, const SymVal& y_min, const SymVal& y_max) {
  if (x_min.fits_int64() && x_max.fits_int64() && y_min.fits_int64() && y_max.fits_int64()) {
    const std::int64_t a = x_min.clamped_int64(), b = x_max.clamped_int64(), c = y_min.clamped_int64(), e = y_max.clamped_int64();
    if (!((c > 0 && e > 0) || (c < 0 && e < 0))) return std::nullopt;
    if (c != -1 && e != -1) {  // (INT64_MIN // -1 overflows: that case goes on below)
      const std::int64_t q = py_floordiv(a, c);
      if (q == py_floordiv(a, e) && q == py_floordiv(b, c) && q == py_floordiv(b, e)) return q;
      return std::nullopt;
    }
  }
  if (!(y_min * y_max > 0) || x_min.is_inf() || x_max.is_inf() || y_min.is_inf() || y_max.is_inf()) return std::nullopt;
  const SymVal qv = floordiv(x_min, y_min);
  if (qv == floordiv(x_min, y_max) && qv == floordiv(x_max, y_min) && qv == floordiv(x_max, y_max) && qv.fits_int64()) return qv.as_int();
  return std::nullopt;
}

template <std::same_as<UOp> U> std::optional<U> fold_divmod_general_uncached(const U& d);

// fold_divmod_general's memo, as tinygrad's functools.cache on it. Every pass of the codegen and every
// nested simplify rebuilds the same index expressions, and the fold is a pure function of the node
// (its structure and bounds): in ResNet-50's rewrite, 7,564 calls for 790 distinct nodes.
template <class U> using DivmodMemo = DirectMemo<U, std::optional<U>, 4096>;

// tinygrad's fold_divmod_general: d is x//y or x%y on weakint
template <std::same_as<UOp> U> std::optional<U> fold_divmod_general(const U& d) {
  // (a provisional node of the rewrite driver finds the answer given for its interned twin)
  return memoized<DivmodMemo<U>>(d, d.hash(), [&] { return fold_divmod_general_uncached(d); },
                                 [](const U& a, const U& b) { return same_node(a.node(), b.node()); });
}
// What it returns for a FLOORDIV is built node for node as tinygrad builds it: nest_by_factor picks among
// such results by their size before they are simplified. Only the FLOORMOD results fold their constants
// as they are built (fold_alu, fold_sub: the rewrite reaches the same fixed point from either).
template <std::same_as<UOp> U> std::optional<U> fold_divmod_general_uncached(const U& d) {
  const UOp x = d.src(0), y = d.src(1);
  const bool is_mod = d.op() == Ops::FLOORMOD;
  auto [x_min, x_max] = x.min_max();
  auto [y_min, y_max] = y.min_max();
  if (!x_min.is_int() || !x_max.is_int() || !y_min.is_int() || !y_max.is_int()) return std::nullopt;
  if (y_min == 0 && y_max == 0)
    throw Error(std::string(is_mod ? "Mod" : "Division") + " by zero trying to rewrite " + x.alu(d.op(), {y}).render());
  // cancel_divmod: the numerator's range lies within one denominator interval
  if (auto q = one_quotient(x_min, x_max, y_min, y_max))
    return is_mod ? fold_sub(x, fold_alu(Ops::MUL, y.const_like(*q), y)) : d.const_like(*q);
  auto [x_peeled, const_arg] = x.pop_const();
  if (!const_arg.is_int()) return std::nullopt;
  const std::int64_t cst = const_arg.as_int();
  TermVec<UOp> uops_no_const;
  split_into(x_peeled, Ops::ADD, uops_no_const);

  if (y.op() == Ops::CONST && y.arg().is_int() && y.arg().as_int() > 0) {
    const std::int64_t c = y.arg().as_int();
    // nested_div_mod: (x%(k*c))//c -> (x//c)%k, (x%(k*c))%c -> x%c
    if (x.op() == Ops::FLOORMOD) {
      if (auto k = x.src(1).divides(c)) {
        if (is_mod) return x.src(0) % y;
        if (k->op() == Ops::CONST ? k->arg().as_int() > 0 : k->vmin() > 0) return x.src(0).floordiv(y) % *k;
      }
    }
    // remove_nested_mod in a sum: (a%4 + b)%2 -> (a+b)%2
    if (is_mod) {
      TermVec<UOp> new_xs;
      bool changed = false;
      for (UOp u : uops_no_const) {
        if (u.op() == Ops::FLOORMOD && u.src(1).divides(c)) u = u.src(0), changed = true;
        new_xs.push_back(u);
      }
      if (changed) return (UOp::usum(new_xs) + cst) % y;
    }
    TermVec<UOp> terms;
    TermVec<std::int64_t> factors;
    if (!factored_terms(uops_no_const, terms, factors)) return std::nullopt;
    auto fdm = [&](std::int64_t a) { return is_mod ? py_floormod(a, c) : py_floordiv(a, c); };
    // fold_binary_numerator: one non-constant term that takes two values
    if (terms.size() == 1) {
      const UOp& v = terms[0];
      if (v.vmax() - v.vmin() == 1 && v.vmin().fits_int64()) {
        std::int64_t vmn = v.vmin().as_int();
        std::int64_t y1 = fdm(factors[0] * vmn + cst), y2 = fdm(factors[0] * (vmn + 1) + cst);
        return (y2 - y1) * (v - vmn) + y1;
      }
    }
    // fold_divmod_congruence: x is congruent to an expression whose range lies in one period
    {
      struct Choice {  // the residues a factor may take: one, or two on a tie
        std::int64_t r[2];
        std::size_t n;
      };
      TermVec<Choice> rem_choices;
      std::size_t combos = 1;
      for (std::int64_t f : factors) {
        const std::int64_t r = py_floormod(f, c);
        if (r * 2 == c) rem_choices.push_back({{r, r - c}, 2});
        else rem_choices.push_back({{nearest_residue(f, c), 0}, 1});
        combos = std::min<std::size_t>(combos * rem_choices.back().n, 4097);
      }
      TermVec<std::int64_t> rems(factors.size());
      // the terms' bounds in int64 when they fit (the usual case): a choice's bounds are then int64 sums,
      // checked for overflow, instead of SymVal arithmetic
      TermVec<std::int64_t> tmin, tmax;
      bool small = true;
      for (const UOp& t : terms) {
        const auto& [lo, hi] = t.min_max();
        small = small && lo.fits_int64() && hi.fits_int64();
        if (!small) break;
        tmin.push_back(lo.clamped_int64()), tmax.push_back(hi.clamped_int64());
      }
      for (std::size_t idx = 0; idx < combos && combos <= 4096; ++idx) {
        std::size_t k = idx;
        for (std::size_t i = rem_choices.size(); i-- > 0;) rems[i] = rem_choices[i].r[k % rem_choices[i].n], k /= rem_choices[i].n;
        // the bounds of rem = sum(r*v for r,v) + const%c, computed as its nodes would compute them, so
        // that rem is only built for the choice that folds; q = rem's quotient when its range lies in
        // one period
        std::optional<std::int64_t> q;
        bool decided = false;
        if (small) {
          std::int64_t lo = py_floormod(cst, c), hi = lo;
          bool ok = true;
          for (std::size_t i = 0; ok && i < terms.size(); ++i) {
            std::int64_t p1, p2;
            ok = !__builtin_mul_overflow(rems[i], tmin[i], &p1) && !__builtin_mul_overflow(rems[i], tmax[i], &p2) &&
                 !__builtin_add_overflow(lo, std::min(p1, p2), &lo) && !__builtin_add_overflow(hi, std::max(p1, p2), &hi);
          }
          if (ok) {
            decided = true;
            if (py_floordiv(lo, c) == py_floordiv(hi, c)) q = py_floordiv(lo, c);
          }
        }
        if (!decided) {
          SymVal rmin = 0, rmax = 0;
          for (std::size_t i = 0; i < terms.size(); ++i) {
            SymVal p1 = SymVal(rems[i]) * terms[i].vmin(), p2 = SymVal(rems[i]) * terms[i].vmax();
            rmin = bound_add(rmin, min(p1, p2), false), rmax = bound_add(rmax, max(p1, p2), true);
          }
          rmin = rmin + py_floormod(cst, c), rmax = rmax + py_floormod(cst, c);
          if (rmin.is_inf() || rmax.is_inf()) continue;
          if (floordiv(rmin, SymVal(c)) == floordiv(rmax, SymVal(c))) q = floordiv(rmin, SymVal(c)).clamped_int64();
        }
        if (q) {
          // Python's sum starts from int 0
          UOp rem;
          for (std::size_t i = 0; i < terms.size(); ++i) {
            UOp t = rems[i] * terms[i];
            rem = rem ? rem + t : fold_alu(Ops::ADD, t.const_like(0), t);
          }
          rem = rem ? fold_alu(Ops::ADD, rem, rem.const_like(py_floormod(cst, c))) : x.const_like(py_floormod(cst, c));
          if (is_mod) return fold_sub(rem, rem.const_like(*q * c));
          UOp s;
          for (std::size_t i = 0; i < terms.size(); ++i) {
            UOp t = py_floordiv(factors[i] - rems[i], c) * terms[i];
            s = s ? s + t : t.const_like(0) + t;
          }
          return (s ? s : x.const_like(0)) + py_floordiv(cst, c) + *q;
        }
      }
    }
    // gcd_with_remainder: factor out a common gcd of the numerator
    std::int64_t g = c;
    for (std::int64_t f : factors) g = std::gcd(g, f);
    if (g > 1) {
      if (auto dx = x_peeled.divides(g)) {
        UOp new_x = simplify(*dx) + py_floormod(py_floordiv(cst, g), c / g);
        if (new_x.vmin() >= 0) {
          if (is_mod) return fold_alu(Ops::ADD, new_x % (c / g) * g, new_x.const_like(py_floormod(cst, g)));
          return new_x.floordiv(new_x.const_like(c / g)) + py_floordiv(cst, c);
        }
      }
    }
    // nest_by_factor: x//c -> (x//f)//(c//f), x%c -> ((x//f)%(c//f))*f + x%f
    TermVec<std::int64_t> divs;
    for (std::size_t i = 0; i < uops_no_const.size(); ++i) {
      std::int64_t f = std::abs(factors[i]);
      if (uops_no_const[i].op() != Ops::CONST && 1 < f && f < c && c % f == 0 && std::find(divs.begin(), divs.end(), f) == divs.end())
        divs.push_back(f);
    }
    std::sort(divs.begin(), divs.end());  // tinygrad iterates a set of small ints: ascending
    std::optional<std::pair<std::size_t, UOp>> best;
    for (std::int64_t div : divs) {
      auto newxs = fold_divmod_general(x.floordiv(x.const_like(div)));
      if (!newxs) continue;
      std::optional<UOp> r;
      std::size_t sz = 0;
      if (!is_mod) r = newxs->floordiv(newxs->const_like(c / div)), sz = newxs->toposort().size();
      else if (x.vmin() >= 0 && newxs->vmin() >= 0) {
        TermVec<UOp> b_parts;
        for (std::size_t i = 0; i < factors.size(); ++i)
          if (py_floormod(factors[i], div)) b_parts.push_back(terms[i].const_like(py_floormod(factors[i], div)) * terms[i]);
        if (py_floormod(cst, div)) b_parts.push_back(x.const_like(py_floormod(cst, div)));
        UOp b = b_parts.empty() ? x.const_like(0) : UOp::usum(b_parts);
        if (0 <= b.vmin() && b.vmax() < div) r = (*newxs % x.const_like(c / div)) * div + b, sz = r->toposort().size();
      }
      if (r) {
        if (!best || sz < best->first) best = {sz, *r};
      }
    }
    if (best) return best->second;
  }
  // variable denominators, or constants the rules above did not fold. x's terms: the ones split above,
  // then the constant pop_const took off the end of the chain
  TermVec<UOp>& all_uops = uops_no_const;
  if (x_peeled != x) all_uops.push_back(x.src(1));
  // divide_by_gcd: x//y -> (x//gcd)//(y//gcd), the gcd of x's terms and y (y after them for the span)
  all_uops.push_back(y);
  const std::span<const UOp> gargs = all_uops;
  // gcd_parts divides every term by its const factor (building nodes) and intersects their factors. A
  // constant denominator's factors are its value and the constant 1, so with one the shared factors are
  // constants and the gcd is 1 exactly when the const factors are coprime: that case needs no gcd_parts.
  // When the shared factors are all constants, the simplified gcd is their product: no rewrite needed (a
  // factor some term lacks is counted 0 times: not in the product).
  UOp gcd;
  std::int64_t const_gcd = 0;
  if (const_int(y))
    for (const UOp& u : gargs) const_gcd = std::gcd(const_gcd, u.const_factor());
  if (const_gcd != 1) {
    auto [common, g] = gcd_parts(gargs);
    bool consts_only = true;
    SymVal prod = g;
    for (const auto& [k, n] : common.items) {
      if (n == 0) continue;
      if (k.op() != Ops::CONST || !k.arg().is_int()) { consts_only = false; break; }
      for (std::int64_t j = 0; j < n; ++j) prod = prod * SymVal(k.arg().as_int());
    }
    if (!consts_only || prod != 1) {
      gcd = simplify(gcd_product(common, g, gargs[0]));
      if (gcd.op() == Ops::CONST && gcd.arg().py_equals(1)) gcd = UOp();
    }
  }
  all_uops.pop_back();  // y
  if (gcd) {
    auto xd = x.divide_exact(gcd), yd = y.divide_exact(gcd);
    if (!xd || !yd) return std::nullopt;
    UOp ret = xd->alu(d.op(), {*yd});
    return is_mod ? ret * gcd : ret;
  }
  // factor_remainder: (d*x+y)//d -> x+y//d
  if (y.vmin() < 0 || x.vmin() < 0) return std::nullopt;
  TermVec<UOp> quo, rem;
  const bool yc = y.op() == Ops::CONST && y.arg().is_int();
  for (const UOp& u : all_uops) {
    if (auto q = u.divide_exact(y)) { quo.push_back(*q); continue; }
    std::int64_t c = u.const_factor();
    if (yc && y.arg().as_int() != 0 && py_floormod(c, y.arg().as_int()) != c) {
      auto dv = c == 0 ? std::optional<UOp>{} : u.divides(c);
      if (!dv) return std::nullopt;
      std::int64_t yv = y.arg().as_int();
      rem.push_back(*dv * py_floormod(c, yv));
      quo.push_back(is_mod ? u.const_like(0) : *dv * py_floordiv(c, yv));
    } else {
      rem.push_back(u);
    }
  }
  if (quo.empty()) return std::nullopt;
  // sum(rem) + 0: Python's sum starts from int 0
  UOp new_x;
  for (const UOp& r : rem) new_x = new_x ? new_x + r : r.const_like(0) + r;
  new_x = new_x ? new_x + 0 : x.const_like(0);
  if (new_x.vmin() < 0) return std::nullopt;
  if (is_mod) return new_x % y;
  UOp s;
  for (const UOp& q : quo) s = s ? s + q : q.const_like(0) + q;
  return new_x.floordiv(y) + s;
}

// x = q*c + rem, rem's coefficients the residues nearest zero (fold_divmod_congruence's choice); nullopt
// when a term has no constant factor
template <std::same_as<UOp> U> std::optional<std::pair<U, U>> congruence_parts(const U& x, std::int64_t c) {
  auto [x_peeled, const_arg] = x.pop_const();
  if (!const_arg.is_int()) return std::nullopt;
  const std::int64_t cst = const_arg.as_int();
  UOp q = x.const_like(py_floordiv(cst, c)), rem = x.const_like(py_floormod(cst, c));
  if (x_peeled.op() != Ops::CONST) {
    TermVec<UOp> uops, terms;
    TermVec<std::int64_t> factors;
    split_into(x_peeled, Ops::ADD, uops);
    if (!factored_terms(uops, terms, factors)) return std::nullopt;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const std::int64_t r = nearest_residue(factors[i], c);
      rem = rem + r * terms[i], q = q + py_floordiv(factors[i] - r, c) * terms[i];
    }
  }
  return std::pair{simplify(q), simplify(rem)};
}
}  // namespace detail

namespace detail {
template <class D_ = void>
struct div_and_mod_symbolic_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        // (x//c+a)//d -> (x+a*c)//(c*d) for c>0, d>0
        rule((var<"x"> / cvar<"c"> + cvar<"a">) / cvar<"d">, [](const UOp& x, const UOp& c, const UOp& a, const UOp& d) -> std::optional<UOp> {
          if (!(c.vmin() > 0 && d.vmin() > 0)) return std::nullopt;
          return (x + fold_alu(Ops::MUL, a, c)).floordiv(fold_alu(Ops::MUL, c, d));
        }),
        // (x+c)//d -> (x+c%d)//d + c//d for d>0
        rule((var<"x">.dtype(dtypes::weakint) + cvar<"c">) / cvar<"d">, [](const UOp& x, const UOp& c, const UOp& d) -> std::optional<UOp> {
          if (!c.arg().is_int() || !d.arg().is_int()) return std::nullopt;
          std::int64_t cv = c.arg().as_int(), dv = d.arg().as_int();
          if (dv <= 0 || py_floormod(cv, dv) == cv) return std::nullopt;
          return (x + py_floormod(cv, dv)).floordiv(d) + py_floordiv(cv, dv);
        }),
        // generic callbacks here and wherever a callback simplifies: the rule set's matchers are then only
        // instantiated by a translation unit that rewrites with it, not by every one that includes it
        rule(op<Ops::FLOORDIV, Ops::FLOORMOD>.dtype(dtypes::weakint).named("d"_n), [](const UOp& d) { return fold_divmod_general(d); }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::div_and_mod_symbolic_def<>> div_and_mod_symbolic{};

}  // namespace mg
