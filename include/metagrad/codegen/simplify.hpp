#pragma once
// tinygrad's codegen/simplify.py: flatten the range lists of END/REDUCE, split a range whose uses are
// `r % c` into two, merge adjacent ranges when that removes div/mod, and shrink ranges to their gates.
#include <vector>

#include "../core/uop_map.hpp"
#include "../pattern/graph_rewrite.hpp"
#include "../symbolic/symbolic.hpp"
#include "../symbolic/valid.hpp"  // op_in_backward_slice_with_self
#include "ranges.hpp"

namespace mg {

namespace detail {
// the RANGEs under an END's or REDUCE's range sources, in toposort order
template <std::same_as<UOp> U> std::optional<U> flatten_range(const U& r) {
  if (r.nsrc() < 2) return std::nullopt;
  std::vector<UOp> rngs(r.src().begin() + 1, r.src().end());
  std::vector<UOp> src{r.src(0)};
  const UOp all = UOp::sink(rngs);
  for (const Node* x : topo_nodes(all.node())) if (x->op == Ops::RANGE) src.push_back(UOp::from_node(x));
  return r.replace({.src = std::move(src)});
}
template <class D_ = void>
struct pm_flatten_range_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(rule(op<Ops::REDUCE, Ops::END>.named("r"_n), [](const UOp& r) { return flatten_range(r); }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::pm_flatten_range_def<>> pm_flatten_range{};

namespace detail {
// ranges marked for a rewrite at the SINK (tinygrad's dict ctx of pm_split_ranges / pm_simplify_ranges)
struct RangeSubCtx {
  UOpMap<UOp> m;
};

// substitute what the passes marked and simplify, once per pass (the ctx is emptied)
template <class F> std::optional<UOp> do_substitute(RangeSubCtx& ctx, const UOp& x, F sub_fxn) {
  std::vector<std::pair<UOp, UOp>> subs;
  for (auto& [k, v] : ctx.m) if (v) subs.emplace_back(k, sub_fxn(k, v));
  ctx.m.clear();
  UOp ret = x.substitute(subs);
  if (ret == x) return std::nullopt;
  return simplify(ret);
}

template <class = void> Arg range_arg_with(const UOp& k, std::int64_t sub) {
  ArgTuple a(k.arg().as_tuple().begin(), k.arg().as_tuple().end() - 1);
  a.emplace_back(sub);
  a.push_back(k.arg()[k.arg().size() - 1]);
  return Arg(std::move(a));
}

template <class D_ = void>
struct pm_split_ranges_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        rule(op<Ops::RANGE>.named("r"_n) % cvar<"c">, [](RangeSubCtx& ctx, const UOp& r, const UOp& c) -> std::optional<UOp> {
          if (!ctx.m.contains(r) && range_type(r) != AxisType::WARP && r.src(0).op() == Ops::CONST && c.arg().is_int() &&
              c.arg().as_int() > 0 && r.src(0).divides(c.arg().as_int()))
            ctx.m[r] = c;
          return std::nullopt;
        }),
        rule(op<Ops::SINK>.named("x"_n), [](RangeSubCtx& ctx, const UOp& x) {
          return do_substitute(ctx, x, [](const UOp& k, const UOp& v) {
            return k.replace({.src = std::vector<UOp>{k.src(0) / v}, .arg = range_arg_with(k, 0)}) * v +
                   k.replace({.src = std::vector<UOp>{v}, .arg = range_arg_with(k, 1)});
          });
        }));
  }
};

// index/range arithmetic uses FLOORDIV/FLOORMOD until the late rewrite
template <class = void> std::size_t count_divmod(const UOp& x) {
  std::size_t n = 0;
  for (const Node* u : topo_nodes(x.node())) n += u->op == Ops::FLOORDIV || u->op == Ops::FLOORMOD;
  return n;
}

template <std::same_as<UOp> U> U simplify_merge_adjacent(U u) {
  RangeMap rm;
  std::vector<std::vector<UOp>> reduce_ranges;
  for (const Node* x : topo_nodes(u.node())) if (x->op == Ops::REDUCE) reduce_ranges.push_back(rm.of(Borrowed(x).get()));
  const std::vector<UOp> ended = ended_ranges(u);
  std::vector<std::pair<UOp, UOp>> pairs;
  // on END only adjacent ranges merge, on REDUCE any two
  if (u.op() == Ops::END) for (std::size_t i = 0; i + 1 < ended.size(); ++i) pairs.emplace_back(ended[i], ended[i + 1]);
  else
    for (std::size_t i = 0; i < ended.size(); ++i)
      for (std::size_t j = 0; j < ended.size(); ++j) if (i != j) pairs.emplace_back(ended[i], ended[j]);
  std::size_t divmods = count_divmod(u);
  for (const auto& [r0, r1] : pairs) {
    if (r0.op() != Ops::RANGE || r1.op() != Ops::RANGE || range_type(r0) != range_type(r1)) continue;
    // a pair made stale by an earlier merge is skipped: substituting only one of the two would drop
    // the other range (tinygrad gets away with it because pm_reduce_unparented ran first)
    const std::vector<UOp> now = ended_ranges(u);
    if (!in_list(now, r0) || !in_list(now, r1)) continue;
    bool same = true;
    for (const auto& rngs : reduce_ranges) same = same && in_list(rngs, r0) == in_list(rngs, r1);
    if (!same) continue;
    const UOp s0 = r0.src(0), s1 = r1.src(0);
    const UOp nr = r0.replace({.src = std::vector<UOp>{s0 * s1}});
    UOp nidx = graph_rewrite(u.substitute({{r0, nr / s1}, {r1, nr % s1}}), symbolic);
    nidx = graph_rewrite(nidx, pm_flatten_range);
    if (const std::size_t n = count_divmod(nidx); n <= divmods) u = nidx, divmods = n;
  }
  return u;
}

template <std::same_as<UOp> U> void mark_gated(RangeSubCtx& ctx, const U& idx) {
  if (idx.nsrc() < 2) return;
  const UOp i = idx.src(1);
  UOpMap<UOp> guards;
  const UOp x = get_idx(i);
  if (is_gated_index(i))
    for (const UOp& v : get_valid(i).split_uop(Ops::AND))
      if (v.op() == Ops::CMPLT && v.src(0).op() == Ops::RANGE && v.src(1).op() == Ops::CONST) guards[v.src(0)] = v.src(1);
  // choose the largest bound c over every gate r < c
  for (auto& [r, c] : guards) {
    auto it = ctx.m.find(r);
    if (it == ctx.m.end()) ctx.m[r] = c;
    else if (it->second.op() == Ops::CONST && it->second.arg().as_int() < c.arg().as_int()) it->second = c;
  }
  // but a range used ungated anywhere keeps its size
  for (const UOp& r : ranges_of(x)) if (!guards.contains(r)) ctx.m[r] = r.src(0);
}

template <class D_ = void>
struct pm_simplify_ranges_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        rule(op<Ops::END, Ops::REDUCE>.named("u"_n), [](const UOp& u) { return simplify_merge_adjacent(u); }),
        rule(op<Ops::INDEX>.named("idx"_n), [](RangeSubCtx& ctx, const UOp& idx) -> std::optional<UOp> {
          mark_gated(ctx, idx);
          return std::nullopt;
        }),
        // reduce ranges can't be shrunk
        rule(op<Ops::REDUCE>.named("red"_n), [](RangeSubCtx& ctx, const UOp& red) -> std::optional<UOp> {
          for (std::size_t i = 1; i < red.nsrc(); ++i) ctx.m[red.src(i)] = red.src(i).src(0);
          return std::nullopt;
        }),
        rule(op<Ops::SINK>.named("x"_n), [](RangeSubCtx& ctx, const UOp& x) {
          return do_substitute(ctx, x, [](const UOp& r, const UOp& c) { return r.replace({.src = std::vector<UOp>{c}}); });
        }));
  }
};
// tinygrad's reduce_unparented: a REDUCE range its source does not use leaves the reduce; an ADD
// multiplies by its size, a MUL raises to it (MAX needs nothing)
template <std::same_as<UOp> U> std::optional<U> reduce_unparented(const U& red) {
  const Ops op = red.arg()[0].as_op();
  if (op != Ops::ADD && op != Ops::MAX && op != Ops::MUL) return std::nullopt;
  const std::vector<UOp> used = ranges_of(red.src(0));
  std::vector<UOp> parented, unparented;
  for (std::size_t i = 1; i < red.nsrc(); ++i) (in_list(used, red.src(i)) ? parented : unparented).push_back(red.src(i));
  if (unparented.empty()) return std::nullopt;
  std::vector<UOp> src{red.src(0)};
  src.insert(src.end(), parented.begin(), parented.end());
  U ret = !parented.empty() || red.dtype() != red.src(0).dtype() ? red.replace({.src = std::move(src)}) : red.src(0);
  for (const UOp& r : unparented) {
    const UOp n = r.src(0).cast(ret.dtype().scalar()).broadcast(ret.dtype().count);
    if (op == Ops::ADD) ret = ret * n;
    if (op == Ops::MUL) ret = ret.pow(n);
  }
  return ret;
}
template <class D_ = void>
struct pm_reduce_unparented_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(rule(op<Ops::REDUCE>.named("red"_n), [](const UOp& red) { return reduce_unparented(red); }));
  }
};

// ---- reduce collapse (tinygrad's pm_reduce_simplify and pm_load_collapse) ----
// A sum over a range whose terms are mostly zero has a closed form: the sum of arange-style masks is a
// clamp (`(r < cut).where(val, 0)` summed over r is `clamp(cut, 0, n) * val`), and a sum of
// `(idx != r).where(0, x[r])` over r is the load x[idx]: tensor indexing by a tensor (one-hot masks
// in the graph) becomes a gather, with no reduce over the indexed axis.

template <std::same_as<UOp> U> bool no_range(const U& u) { return !op_in_backward_slice_with_self(u, OpSet{Ops::RANGE}); }
template <std::same_as<UOp> U> bool no_load(const U& u) { return !op_in_backward_slice_with_self(u, OpSet{Ops::INDEX}); }

// the sum of val over the values of r where lo <= r < hi (lo, hi clamped to [0, n])
template <class = void> UOp masked_range_sum(const UOp& r, const UOp& count, const UOp& val) { return count.maximum(Arg(0)).minimum(r.src(0)).cast(val.dtype()) * val; }

template <class D_ = void>
struct pm_reduce_collapse_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    auto range = op<Ops::RANGE>.named("r"_n);
    auto is_add = [](const UOp& red) { return red.arg()[0].as_op() == Ops::ADD; };
    return LazyRules<pm_reduce_unparented_def<>>::template get<T>() + rules(
        // lift x+y out of reduce on lt
        rule(or_casted(var<"x"> + var<"y">) < var<"c">, [](const UOp& x, const UOp& y, const UOp& c) -> std::optional<UOp> {
          if (!no_range(y) || !no_range(c)) return std::nullopt;
          return x < (c.cast(y.dtype()) - y);
        }),
        // lift x*y out of reduce
        rule((var<"x"> * var<"y">) < var<"c">, [](const UOp& x, const UOp& y, const UOp& c) -> std::optional<UOp> {
          if (!no_range(y) || !no_range(c) || !y.dtype().is_int() || !(y.vmin() > SymVal(0))) return std::nullopt;
          return x < ((c + y - 1) / y);
        }),
        // fold the range: bound from below
        rule(op<Ops::REDUCE>(where(range < var<"cut">, 0, var<"val">), var<"r">).named("red"_n), [=](const UOp& red, const UOp& r, const UOp& cut, const UOp& val) -> std::optional<UOp> {
          if (!is_add(red) || !no_range(val)) return std::nullopt;
          return masked_range_sum(r, r.src(0) - cut, val);
        }),
        // bound from two sides
        rule(op<Ops::REDUCE>(where(ne(var<"r"> < var<"lower">, true) & (range < var<"upper">), var<"val">, 0), var<"r">).named("red"_n),
             [=](const UOp& red, const UOp& r, const UOp& lower, const UOp& upper, const UOp& val) -> std::optional<UOp> {
               if (!is_add(red) || !no_range(val)) return std::nullopt;
               return masked_range_sum(r, upper.minimum(r.src(0)) - lower.maximum(Arg(0)), val);
             }),
        // bound from above
        rule(op<Ops::REDUCE>(where(range < var<"cut">, var<"val">, 0), var<"r">).named("red"_n), [=](const UOp& red, const UOp& r, const UOp& cut, const UOp& val) -> std::optional<UOp> {
          if (!is_add(red) || !no_range(val)) return std::nullopt;
          return masked_range_sum(r, cut, val);
        }),
        // a sum of a sum is the sum of the sums
        rule(op<Ops::REDUCE>(var<"x"> + var<"y">, etc).named("red"_n), [=](const UOp& red, const UOp& x, const UOp& y) -> std::optional<UOp> {
          if (!is_add(red)) return std::nullopt;
          std::vector<UOp> rngs(red.src().begin() + 1, red.src().end());
          return x.reduce(Ops::ADD, rngs) + y.reduce(Ops::ADD, rngs);
        }),
        // a variable in the mask's AND is a factor
        rule(op<Ops::REDUCE>(where(op<Ops::DEFINE_VAR>.named("x"_n) & var<"y">, var<"c">, 0), etc).named("red"_n),
             [=](const UOp& red, const UOp& x, const UOp& y, const UOp& c) -> std::optional<UOp> {
               if (!is_add(red)) return std::nullopt;
               return y.where(c, c.const_like(Arg(0))).reduce(Ops::ADD, std::vector<UOp>(red.src().begin() + 1, red.src().end())) * x.cast(c.dtype());
             }),
        // a product with a casted bool is a where
        rule(var<"x"> * cast(var<"gate">.dtype(dtypes::bool_)), [](const UOp& x, const UOp& gate) { return gate.where(x, x.const_like(Arg(0))); })
      ) + symbolic.template get<T>();
  }
};
template <class D_ = void>
struct pm_reduce_load_collapse_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return LazyRules<pm_reduce_collapse_def<>>::template get<T>() + rules(
        // lift x+y out of reduce on ne
        rule(ne(or_casted(var<"x"> + var<"y">), var<"c">), [](const UOp& x, const UOp& y, const UOp& c) -> std::optional<UOp> {
          if (!no_range(y) || !no_range(c)) return std::nullopt;
          return x.ne(c.cast(y.dtype()) - y);
        }),
        // a sum of a load gated by `idx == r` over r is the load at idx (when 0 <= idx < n)
        rule(op<Ops::REDUCE>(where(ne(var<"idx">, or_casted(op<Ops::RANGE>.named("r"_n))), 0, var<"expr">), var<"r">).named("red"_n),
             [](const UOp& red, const UOp& idx, const UOp& r, const UOp& expr) -> std::optional<UOp> {
               if (red.arg()[0].as_op() != Ops::ADD) return std::nullopt;
               const UOp i = idx.cast(r.dtype());
               const UOp v = (i >= 0) & (i < r.src(0));
               return v.where(expr.substitute({{r, i.valid(v)}}), expr.const_like(Arg(0)));
             }));
  }
};

// tinygrad's reduce_collapse: for each range of the REDUCE, the part of its source that depends on the
// range is rewritten alone (everything else stands in as a variable with its bounds); if the rules
// leave no range, the reduce is gone
template <class RS> std::optional<UOp> reduce_collapse(const UOp& red, const UOp& src, const RS& pm) {
  UOp u = src;
  for (std::size_t ri = 1; ri < red.nsrc(); ++ri) {
    const UOp& r = red.src(ri);
    RangeMap rm;
    // the nodes under u that depend on r, through nodes that do (tinygrad's toposort with a gate)
    std::vector<UOp> included;
    PtrMap<char> state;  // 1: sources pushed, 2: done
    std::vector<UOp> stack;
    if (rm.in(u, r)) stack.push_back(u);
    while (!stack.empty()) {
      const UOp n = stack.back();
      char* st = state.find(n.node());
      if (st && *st == 2) { stack.pop_back(); continue; }
      if (!st) {
        state.set(n.node(), 1);
        for (std::size_t i = n.nsrc(); i-- > 0;)
          if (!state.find(n.src(i).node()) && rm.in(n.src(i), r)) stack.push_back(n.src(i));
        continue;
      }
      *st = 2;
      included.push_back(n);
      stack.pop_back();
    }
    for (const UOp& x : included)
      if (x.op() == Ops::STORE || x.op() == Ops::REDUCE) return std::nullopt;
    std::vector<std::pair<UOp, UOp>> replaces;
    for (const UOp& x : included)
      for (const UOp& s : x.src()) {
        if (state.find(s.node()) || s.op() == Ops::CONST || s.op() == Ops::PARAM || s.op() == Ops::DEFINE_LOCAL || s.op() == Ops::DEFINE_VAR) continue;
        if (std::any_of(replaces.begin(), replaces.end(), [&](const auto& p) { return p.first == s; })) continue;
        const auto lo = s.vmin(), hi = s.vmax();
        auto bound = [](const SymVal& b) { return b.is_float() ? Arg(b.as_double()) : Arg(b.clamped_int64()); };
        replaces.emplace_back(s, UOp(Ops::DEFINE_VAR, s.dtype(), {}, ArgTuple{Arg("in" + std::to_string(replaces.size())), bound(lo), bound(hi)}));
      }
    const UOp sink = graph_rewrite(u.substitute(replaces).reduce(Ops::ADD, {r}), pm);
    if (!no_range(sink)) return std::nullopt;
    std::vector<std::pair<UOp, UOp>> back;
    for (const auto& [k, v] : replaces) back.emplace_back(v, k);
    u = sink.substitute(back);
  }
  return u;
}

template <class D_ = void>
struct pm_reduce_simplify_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return LazyRules<pm_reduce_unparented_def<>>::template get<T>() + rules(
        rule(op<Ops::REDUCE>(var<"u">, etc).named("red"_n), [](const UOp& red, const UOp& u) -> std::optional<UOp> {
          if (red.arg()[0].as_op() != Ops::ADD) return std::nullopt;
          return reduce_collapse(red, u, LazyRules<pm_reduce_collapse_def<>>{});
        }));
  }
};
template <class D_ = void>
struct pm_load_collapse_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        rule(op<Ops::REDUCE>(var<"u">, upat).named("red"_n), [](const UOp& red, const UOp& u) -> std::optional<UOp> {
          if (red.arg()[0].as_op() != Ops::ADD) return std::nullopt;
          return reduce_collapse(red, u, LazyRules<pm_reduce_load_collapse_def<>>{});
        }),
        // no math on a loaded index (it could overflow): undo pm_reduce_load_collapse's lift
        rule((var<"x">.dtype(dtypes::weakint) + var<"y">) < var<"c">, [](const UOp& x, const UOp& y, const UOp& c) -> std::optional<UOp> {
          if (!no_load(y) || !no_load(c) || no_load(x)) return std::nullopt;
          return x < (c - y);
        }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::pm_split_ranges_def<>> pm_split_ranges{};
inline constexpr LazyRules<detail::pm_reduce_unparented_def<>> pm_reduce_unparented{};
inline constexpr LazyRules<detail::pm_simplify_ranges_def<>> pm_simplify_ranges{};
inline constexpr LazyRules<detail::pm_reduce_simplify_def<>> pm_reduce_simplify{};
inline constexpr LazyRules<detail::pm_load_collapse_def<>> pm_load_collapse{};

}  // namespace mg
