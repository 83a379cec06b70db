#pragma once
// Valid simplification (tinygrad's simplify_valid / uop_given_valid): an expression guarded by a
// valid (a conjunction of bounds like 0<=x<n) is simplified knowing the valid holds.
#include <algorithm>
#include <concepts>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "../core/thread_cache.hpp"
#include "../core/uop.hpp"
#include "symbolic.hpp"

namespace mg {
namespace detail {

// simplify(substituted).substitute(back): when simplify left the graph as it was, substituting back
// gives the original exactly, unless a fake variable was in it already (a nested call's)
template <std::same_as<UOp> U>
U unsubstitute(const U& simplified, const U& substituted, const U& original, const std::vector<std::pair<U, U>>& back) {
  if (simplified == substituted &&
      std::none_of(back.begin(), back.end(), [&](const auto& fx) { return in_toposort(fx.first, original); }))
    return original;
  return simplified.substitute(back);
}
template <std::same_as<UOp> U> bool op_in_backward_slice_with_self(const U& u, OpSet ops) {
  for (const Node* x : topo_nodes(u.node())) if (ops.contains(x->op)) return true;
  return false;
}

// X <= c gives (X, true, c); X >= c gives (X, false, c)
template <std::same_as<UOp> U> std::optional<std::tuple<U, bool, std::int64_t>> parse_valid(const U& v) {
  if (v.op() == Ops::CMPNE && v.src(1).op() == Ops::CONST && v.src(1).arg().py_equals(1) && v.src(0).op() == Ops::CMPLT &&
      v.src(0).src(0).dtype().is_int())
    return std::tuple{v.src(0).src(0), false, v.src(0).src(1).vmin().clamped_int64()};  // (X < c).ne(True) -> X >= c
  if (v.op() == Ops::CMPLT && v.src(0).dtype().is_int())
    return std::tuple{v.src(0), true, (v.src(1).vmax() - 1).clamped_int64()};  // X < c -> X <= c-1
  return std::nullopt;
}

template <std::same_as<UOp> U> U uop_given_valid_uncached(const U& valid, U uop, bool try_simplex);

// uop_given_valid's memo: its answer is a pure function of the two nodes (their structure and bounds),
// and the devectorizer asks some questions again (ResNet-50's rewrite: 91 of 767 calls a round repeat
// one asked before)
struct ValidKey {
  UOp valid, uop;
  bool try_simplex = false;
  friend bool operator==(const ValidKey&, const ValidKey&) = default;
};
using ValidMemo = DirectMemo<ValidKey, UOp, 1024>;

template <std::same_as<UOp> U> U uop_given_valid(const U& valid, const U& uop, bool try_simplex = true) {
  return memoized<ValidMemo>(ValidKey{valid, uop, try_simplex}, mix(mix(valid.hash(), uop.hash()), try_simplex),
                             [&] { return uop_given_valid_uncached(valid, uop, try_simplex); });
}

template <std::same_as<UOp> U> U uop_given_valid_uncached(const U& valid, U uop, bool try_simplex) {
  // parse the valid into {expr: (lower bound, upper bound)}, in first-seen order
  std::vector<std::pair<UOp, std::array<std::optional<std::int64_t>, 2>>> bounds;
  for (const UOp& stmt : valid.split_uop(Ops::AND)) {
    auto res = parse_valid(stmt);
    if (!res) continue;
    auto& [expr, is_upper, c] = *res;
    auto it = std::find_if(bounds.begin(), bounds.end(), [&](const auto& b) { return b.first == expr; });
    if (it == bounds.end()) it = bounds.insert(bounds.end(), {expr, {}});
    it->second[is_upper ? 1 : 0] = c;
  }
  std::vector<std::pair<UOp, UOp>> all_candidates;
  // the last single candidate solved, on which uop, to what: the step "all the valids together" below is
  // the same computation when there is one candidate and uop is that one again (most gates bound one
  // expression, and most calls leave the index as it was)
  UOp solved_X, solved_in, solved_out;
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    const auto& [expr, v] = bounds[i];
    std::int64_t v0 = v[0] ? *v[0] : expr.vmin().clamped_int64(), v1 = v[1] ? *v[1] : expr.vmax().clamped_int64();
    if (v0 > v1) continue;  // an empty range: nothing to substitute
    all_candidates.emplace_back(expr, UOp::variable("fake" + std::to_string(i), v0, v1, expr.dtype()));
    if (!try_simplex) continue;
    // every candidate is a set of constrained UOps; if each simplifies uop to the same output, take it.
    // There are one or two: a fixed array (a vector of vectors here makes GCC 12 -O2 report a bogus
    // -Warray-bounds when it inlines the outer vector's reallocation)
    std::vector<std::pair<UOp, UOp>> candidates[2] = {{all_candidates.back()}, {}};
    std::size_t ncandidates = 1;
    if (expr.op() == Ops::ADD && v0 == 1) {
      auto terms = expr.split_uop(Ops::ADD);
      if (std::all_of(terms.begin(), terms.end(), [](const UOp& u) { return GroupOp::Irreducible.contains(u.op()); })) {
        for (const UOp& Xi : terms)
          candidates[1].emplace_back(Xi, UOp::variable("fake" + std::to_string(i), 1, Xi.vmax().clamped_int64(), Xi.dtype()));
        ncandidates = 2;
      }
    }
    for (std::size_t ci = 0; ci < ncandidates; ++ci) {
      const auto& candidate = candidates[ci];
      std::vector<UOp> newuops;
      bool skip = false;
      for (const auto& [X, newX] : candidate) {
        newuops.push_back(uop.substitute({{X, newX}}));
        if (newuops.back() == uop) skip = true;
      }
      if (skip) continue;
      for (std::size_t k = 0; k < candidate.size(); ++k)
        newuops[k] = simplify(unsubstitute(simplify(newuops[k]), newuops[k], uop, {{candidate[k].second, candidate[k].first}}));
      if (ci == 0) solved_X = candidate[0].first, solved_in = uop, solved_out = newuops[0];
      if (std::all_of(newuops.begin(), newuops.end(), [&](const UOp& u) { return u == newuops[0]; })) uop = newuops[0];
      else if (uop.op() == Ops::STACK && uop.nsrc() == 2) {
        auto same = [&](std::size_t s) { return std::all_of(newuops.begin(), newuops.end(), [&](const UOp& u) { return u.src(s) == newuops[0].src(s); }); };
        if (same(0)) uop = uop.replace({.src = std::vector<UOp>{newuops[0].src(0), uop.src(1)}});
        if (same(1)) uop = uop.replace({.src = std::vector<UOp>{uop.src(0), newuops[0].src(1)}});
      }
    }
  }
  // all the valids together (whole expressions only)
  if (all_candidates.size() == 1 && solved_X == all_candidates[0].first && solved_in == uop) return solved_out;
  UOp s_uop = uop.substitute(all_candidates);
  if (s_uop != uop) {
    std::vector<std::pair<UOp, UOp>> back;
    for (const auto& [X, newX] : all_candidates) back.emplace_back(newX, X);
    uop = simplify(unsubstitute(simplify(s_uop), s_uop, uop, back));
  }
  return uop;
}

template <std::same_as<UOp> U> std::optional<U> simplify_valid(const U& valid) {
  if (op_in_backward_slice_with_self(valid, OpSet{Ops::INDEX})) return std::nullopt;  // only for indexing
  std::vector<UOp> valids = valid.split_uop(Ops::AND);
  // a valid that appears inside other valids goes first, so the others are more likely to simplify
  auto priority = [&](const UOp& v) {
    int p = 0;
    auto res = parse_valid(v);
    if (res) for (const UOp& other : valids) if (in_toposort(std::get<0>(*res), other)) --p;
    return p;
  };
  std::vector<std::tuple<int, std::size_t, UOp>> keyed;  // (priority, position): a stable order
  for (std::size_t i = 0; i < valids.size(); ++i) keyed.emplace_back(priority(valids[i]), i, valids[i]);
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  for (std::size_t i = 0; i < valids.size(); ++i) valids[i] = std::get<2>(keyed[i]);
  std::vector<UOp> ret, seen;
  for (UOp stmt : valids) {
    if (std::find(seen.begin(), seen.end(), stmt) != seen.end()) continue;
    seen.push_back(stmt);
    if (!ret.empty()) stmt = uop_given_valid(UOp::uprod(ret), stmt);
    ret.push_back(stmt);
  }
  if (ret == valids) return std::nullopt;
  return UOp::uprod(ret);
}

// A gate clause (x % c) < k where x = q*c + rem and rem lies in [-c, c) across zero: a negative rem wraps to
// x % c = rem + c >= rem.vmin + c, so when that is at least k the clause holds exactly where 0 <= rem < k, and
// there x // c = q and x % c = rem. This is the index of a convolution's input gradient (the transpose of
// _pool's repeat trick): ((a*24+y)//25, (a*24+y)%25) gated by (a*24+y)%25 < 20 becomes (a, y-a) gated by
// 0 <= y-a < 20, linear, with no division left in the kernel.
template <std::same_as<UOp> U> std::optional<std::pair<U, U>> unwrap_mod_gate(const U& cond, const U& x) {
  for (const UOp& stmt : cond.split_uop(Ops::AND)) {
    if (stmt.op() != Ops::CMPLT || stmt.src(0).op() != Ops::FLOORMOD || stmt.src(1).op() != Ops::CONST) continue;
    const UOp& m = stmt.src(0);
    if (m.dtype() != dtypes::weakint || m.src(1).op() != Ops::CONST || !m.src(1).arg().is_int() || !stmt.src(1).arg().is_int()) continue;
    const std::int64_t c = m.src(1).arg().as_int(), k = stmt.src(1).arg().as_int();
    if (c <= 1 || k <= 0 || k >= c) continue;
    auto parts = congruence_parts(m.src(0), c);
    if (!parts) continue;
    const auto& [q, rem] = *parts;
    const SymVal rmin = rem.vmin(), rmax = rem.vmax();
    if (!(rmin >= -c && rmin < 0 && rmax >= 0 && rmax < c && rmin + c >= k)) continue;
    const std::vector<std::pair<UOp, UOp>> sub{{m.src(0).floordiv(m.src(1)), q}, {m, rem}};
    UOp new_cond = cond.substitute({{stmt, (rem >= rem.const_like(0)) & (rem < k)}}).substitute(sub);
    return std::pair{simplify(new_cond), simplify(x.substitute(sub))};
  }
  return std::nullopt;
}

template <std::same_as<UOp> U> std::optional<U> gated_given_valid(const U& cond, const U& x, const U& i) {
  if (x.dtype().scalar() != dtypes::weakint) return std::nullopt;
  if (auto u = unwrap_mod_gate(cond, x)) return u->first.where(uop_given_valid(u->first, u->second, false), i);
  return cond.where(uop_given_valid(cond, x, false), i);
}

// The same for a value cond.where(x, alt): x only matters where cond holds, so its loads may index by the
// unwrapped quotient and remainder. In a convolution's input gradient the weight is read under such a where
// (outside the reduce over output channels) by ((a*24+y)//25, ...); unwrapped, its index no longer moves
// with y. Every load the substitution changes must stay inside its buffer where cond fails too.
template <std::same_as<UOp> U> std::optional<U> value_given_valid(const U& cond, const U& x, const U& alt) {
  if (x.dtype().scalar() == dtypes::weakint || is_invalid(alt)) return std::nullopt;
  auto u = unwrap_mod_gate(cond, x);
  if (!u || u->second == x) return std::nullopt;
  const auto before = x.toposort();
  for (const UOp& b : u->second.toposort()) {
    if (b.op() != Ops::INDEX || std::find(before.begin(), before.end(), b) != before.end()) continue;
    if (b.nsrc() != 2 || !b.src(0).dtype().is_ptr) return std::nullopt;
    const UOp idx = get_idx(b.src(1));
    const std::int64_t size = b.src(0).dtype().size;
    if (idx.dtype() != dtypes::weakint || size < 0 || !(idx.vmin() >= 0) || !(idx.vmax() < size)) return std::nullopt;
  }
  return u->first.where(u->second, alt);
}
}  // namespace detail

namespace detail {
template <class D_ = void>
struct pm_simplify_valid_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        rule(op<Ops::AND>.named("valid"_n), [](const UOp& valid) { return simplify_valid(valid); }),
        rule(invalid_gate_v<T>, [](const UOp& cond, const UOp& x, const UOp& i) { return gated_given_valid(cond, x, i); }),
        rule(where(var<"cond">, var<"x">, var<"alt">), [](const UOp& cond, const UOp& x, const UOp& alt) { return value_given_valid(cond, x, alt); }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::pm_simplify_valid_def<>> pm_simplify_valid{};

}  // namespace mg
