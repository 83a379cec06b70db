#pragma once
// sym: tinygrad's complete symbolic rule set ("symbolic 2.0") — symbolic, valid simplification,
// load/store folding, reciprocal and reduce rules, term combining, and GROUP/SINK clean-up.
#include <algorithm>
#include <concepts>
#include <optional>
#include <vector>

#include "../core/uop.hpp"
#include "symbolic.hpp"
#include "valid.hpp"

namespace mg {
namespace detail {
template <std::same_as<UOp> U> bool is_add_reduce(const U& r) { return r.arg().is_tuple() && r.arg().size() > 0 && r.arg()[0].py_equals(Ops::ADD); }

// Shrink a summed range whose last iterations are all masked off (metagrad's own): a sum of
// where(cond, x, 0) over r in [0, n) ends at m when cond is false for r = m..n-1. The input gradient of a
// stride-1 pool (tinygrad's repeat trick) sums over ceil(k*(i+1)/i) repeats of which only k can be valid:
// a 5x5 convolution's input gradient reads 6x6 taps, a 3x3 one's 4x4.
template <std::same_as<UOp> U> std::optional<U> shrink_masked_reduce(const U& r) {
  if (!is_add_reduce(r) || r.src(0).op() != Ops::WHERE) return std::nullopt;
  const UOp& w = r.src(0);
  if (!(w.src(2).op() == Ops::CONST && w.src(2).arg().py_equals(0))) return std::nullopt;
  const UOp& cond = w.src(0);
  std::vector<std::pair<UOp, UOp>> shrunk;
  for (const UOp& rg : r.src().subspan(1)) {
    if (rg.op() != Ops::RANGE || rg.src(0).op() != Ops::CONST || !rg.src(0).arg().is_int()) continue;
    const std::int64_t n = rg.src(0).arg().as_int();
    std::int64_t m = n;
    while (m > 1) {
      UOp c = simplify(cond.substitute({{rg, rg.const_like(m - 1)}}));
      if (auto v = simplify_valid(c)) c = simplify(*v);  // a clause false given the others
      if (!(c.op() == Ops::CONST && c.arg().py_equals(false))) break;
      --m;
    }
    if (m == n) continue;
    std::vector<UOp> src(rg.src().begin(), rg.src().end());
    src[0] = src[0].const_like(m);
    shrunk.emplace_back(rg, rg.replace({.src = std::move(src)}));
  }
  if (shrunk.empty()) return std::nullopt;
  return r.substitute(shrunk);
}

// move the factors of a reduce's body that do not depend on its ranges out of the reduce
template <std::same_as<UOp> U> std::optional<U> reduce_mul_chain(const U& r) {
  if (!r.arg().is_tuple() || r.arg().size() == 0) return std::nullopt;
  const bool is_max = r.arg()[0].py_equals(Ops::MAX);
  if (!is_add_reduce(r) && !is_max) return std::nullopt;
  if (r.dtype() != r.src(0).dtype()) return std::nullopt;
  std::vector<UOp> inside, outside;
  auto ranges = r.src().subspan(1);
  for (const UOp& m : r.src(0).split_uop(Ops::MUL)) {
    auto topo = m.toposort();
    bool independent = std::find(ranges.begin(), ranges.end(), m) == ranges.end();
    for (const UOp& rg : ranges)
      if (std::find(topo.begin(), topo.end() - 1, rg) != topo.end() - 1) independent = false;
    if (independent && (!is_max || m.vmin() >= 0)) outside.push_back(m);
    else inside.push_back(m);
  }
  if (outside.empty()) return std::nullopt;
  std::vector<UOp> src{inside.empty() ? r.src(0).const_like(1) : UOp::uprod(inside)};
  src.insert(src.end(), ranges.begin(), ranges.end());
  // Python's prod(outside) starts from 1
  UOp prod = r.src(0).const_like(1) * outside[0];
  for (std::size_t i = 1; i < outside.size(); ++i) prod = prod * outside[i];
  return r.replace({.src = std::move(src)}) * prod;
}

inline constexpr OpSet remove_from_sink_like{Ops::UNROLL, Ops::NOOP, Ops::STACK, Ops::SINK, Ops::GROUP};
}  // namespace detail

// clean up GROUP/SINK
namespace detail {
template <class D_ = void>
struct pm_clean_up_group_sink_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        rule(op<Ops::GROUP>(var<"x">), [](const UOp& x) { return x; }),
        rule(op<Ops::SINK, Ops::GROUP>.named("root"_n), [](const UOp& root) -> std::optional<UOp> {
          bool any = false;
          std::vector<UOp> src;
          for (const UOp& x : root.src()) {
            if (remove_from_sink_like.contains(x.op())) {
              any = true;
              src.insert(src.end(), x.src().begin(), x.src().end());
            } else {
              src.push_back(x);
            }
          }
          if (!any) return std::nullopt;
          return UOp(root.op(), root.dtype(), std::move(src), root.arg());
        }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::pm_clean_up_group_sink_def<>> pm_clean_up_group_sink{};

namespace detail {
template <class D_ = void>
struct sym_def {
  MG_RULE_LEAVES(D_)
  static constexpr bool pure_rules = true;  // its fixed points settle (core/rewrite.hpp), and are symbolic's too
  using contains = symbolic_def<>;
  template <class T> static constexpr auto make() {
    const auto invalid_pat = invalid_pat_v<T>;
    auto x = var<"x">;
    auto recip = [](auto p) { return op<Ops::RECIPROCAL>(p); };
    auto one_plus_x_recip = recip(1 + x).named("d"_n);
    return symbolic.get<T>() + pm_simplify_valid.get<T>() + rules(
        // reorder ALU/STACK
        rule(op<GroupOp::ALU>(op<Ops::STACK>(repeat(var<"x">)), op<Ops::STACK>(repeat(var<"y">))).named("alu"_n), [](const UOp& alu, const UOp& x, const UOp& y) {
          UOp s(alu.op(), alu.dtype().scalar(), {x, y});
          return UOp(Ops::STACK, alu.dtype(), std::vector<UOp>(std::size_t(alu.dtype().count), s));
        }),
        // push a cast into the branches of a where
        rule(cast(where(var<"s">, var<"a">, var<"b">)).named("cast"_n),
             [](const UOp& cast, const UOp& s, const UOp& a, const UOp& b) { return s.where(a.cast(cast.dtype()), b.cast(cast.dtype())); }),
        // ** pow **
        rule(op<Ops::POW>.named("p"_n), [](const UOp& p) { return xpow(p.src(0), p.src(1)); }),
        // ** load/store folding **
        rule(store(op<Ops::INDEX>.named("index"_n), load(op<Ops::INDEX>.named("index"_n))), [](const UOp&) { return UOp(Ops::NOOP); }),
        rule(store(op<Ops::INDEX>.named("index"_n), where(var<"gate">, var<"alt">, load(op<Ops::INDEX>.named("index"_n)))),
             [](const UOp& index, const UOp& gate, const UOp& alt) { return index.src(0).index({gate.where(index.src(1), UOp::invalid())}).store(alt); }),
        // fold gated STORE
        rule(op<Ops::STORE>(upat, invalid_pat), [](const UOp&) { return UOp(Ops::NOOP); }),
        // a store of a where with Invalid is a gated store
        rule(op<Ops::STORE>(op<Ops::INDEX>.named("index"_n), where(var<"cond">, var<"val">, invalid_pat)),
             [](const UOp& index, const UOp& cond, const UOp& val, const UOp&) { return index.src(0).index({cond.where(index.src(1), UOp::invalid())}).store(val); }),
        // ** reciprocals **
        rule(recip(x * x), [](const UOp& x) { return x.reciprocal() * x.reciprocal(); }),
        rule(recip(x * x * x), [](const UOp& x) { return x.reciprocal() * x.reciprocal() * x.reciprocal(); }),
        rule(recip(x * cvar<"c">), [](const UOp& x, const UOp& c) { return x.reciprocal() * c.reciprocal(); }),
        rule(x * one_plus_x_recip, [](const UOp& x, const UOp& d) { (void)x; return 1 - d; }),
        rule(x * (one_plus_x_recip * var<"y">), [](const UOp& x, const UOp& d, const UOp& y) { (void)x; return y * (1 - d); }),
        rule(x * (one_plus_x_recip + var<"y">), [](const UOp& x, const UOp& d, const UOp& y) { return (1 - d) + x * y; }),
        rule(op<Ops::REDUCE>(op<Ops::WHERE>, etc).named("r"_n), [](const UOp& r) { return shrink_masked_reduce(r); }),
        // move a const multiply after an ADD REDUCE
        rule(op<Ops::REDUCE>(x * cvar<"c">, etc).named("r"_n), [](const UOp& r, const UOp& x, const UOp& c) -> std::optional<UOp> {
          if (!is_add_reduce(r)) return std::nullopt;
          std::vector<UOp> src{x};
          src.insert(src.end(), r.src().begin() + 1, r.src().end());
          UOp nr = r.replace({.src = std::move(src)});
          return nr * nr.const_like(c.arg());
        }),
        // reduce mul chain: move muls after the reduce
        rule(op<Ops::REDUCE>(op<Ops::MUL>, etc).named("r"_n), [](const UOp& r) { return reduce_mul_chain(r); }),
        // ** combine terms (opinionated) **
        rule(-1 * (x + var<"y">), [](const UOp& x, const UOp& y) { return (-x) + (-y); }),
        // (x+y)*c -> x*c+y*c, only for int (float has inf*0=nan)
        rule((x.dtype(dtypes::weakint) + var<"y">) * cvar<"c">, [](const UOp& x, const UOp& y, const UOp& c) { return x * c + y * c; })) + pm_clean_up_group_sink.get<T>();
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::sym_def<>> sym{};

}  // namespace mg
