#pragma once
// tinygrad's codegen/late/expander.py: UPCAST and UNROLL ranges become vector lanes. pm_pre_expander
// turns each such RANGE into UNROLL(the vector 0..n-1) with arg ((axis, n),); the expander then pushes
// UNROLLs up the graph (do_expand: an op with an UNROLL source runs on expand_sz lanes at once, its other
// sources broadcast), and CONTRACT folds lanes back into a vector where a REDUCE reduces over an
// UNROLL range (a horizontal reduce later) or an END closes an UPCAST range.
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../pattern/graph_rewrite.hpp"
#include "../symbolic/symbolic.hpp"
#include "ranges.hpp"

namespace mg {

namespace detail {
// an UNROLL/CONTRACT arg: ((axis, size), ...)
using ExpandArgs = std::vector<std::pair<std::int64_t, std::int64_t>>;

template <class = void> ExpandArgs expand_args_of(const Arg& a) {
  ExpandArgs out;
  for (const Arg& p : a.as_tuple()) out.emplace_back(p[0].as_int(), p[1].as_int());
  return out;
}
template <class = void> Arg expand_args_arg(const ExpandArgs& e) {
  ArgTuple t;
  for (const auto& [ax, sz] : e) t.push_back(Arg(ArgTuple{Arg(ax), Arg(sz)}));
  return Arg(std::move(t));
}
template <class = void> std::int64_t expand_prod(const ExpandArgs& e) {
  std::int64_t n = 1;
  for (const auto& p : e) n *= p.second;
  return n;
}
// calls f(vals) for every assignment of values to the axes of args (vals[i] the value of args[i]), the
// last axis fastest (itertools.product over the sizes)
template <class F> void for_each_choice(const ExpandArgs& args, F&& f) {
  for (const auto& a : args) if (a.second <= 0) return;
  std::vector<std::int64_t> vals(args.size(), 0);
  for (;;) {
    f(std::as_const(vals));
    std::size_t i = args.size();
    for (; i > 0; --i) {
      if (++vals[i - 1] < args[i - 1].second) break;
      vals[i - 1] = 0;
    }
    if (i == 0) return;
  }
}
// the value a choice gives an axis (its last entry in args wins, as a dict built from args): null if none
inline const std::int64_t* axis_value(const ExpandArgs& args, const std::vector<std::int64_t>& vals, std::int64_t ax) {
  for (std::size_t i = args.size(); i-- > 0;) if (args[i].first == ax) return &vals[i];
  return nullptr;
}
// the lane of an expansion for the value each axis takes (tinygrad's _expand_arg_to_idx); value(ax) gives it
template <class V> int expand_arg_to_idx(const ExpandArgs& args, V&& value) {
  std::int64_t idx = 0, mul = 1;
  for (auto it = args.rbegin(); it != args.rend(); ++it) {
    const std::int64_t* v = value(it->first);
    if (!v) throw Error("expander: axis " + std::to_string(it->first) + " of an UNROLL has no value in the CONTRACT or UNROLL it meets");
    idx += *v * mul;
    mul *= it->second;
  }
  return int(idx);
}
template <class = void> std::vector<int> swizzle_args(const ExpandArgs& cargs, const ExpandArgs& eargs) {
  std::vector<int> out;
  for_each_choice(cargs, [&](const std::vector<std::int64_t>& vals) {
    out.push_back(expand_arg_to_idx(eargs, [&](std::int64_t ax) { return axis_value(cargs, vals, ax); }));
  });
  return out;
}
// GEP that lets void through (tinygrad's GEP on void is dropped by gep_pushing)
template <class = void> UOp gep_lanes(const UOp& x, const std::vector<int>& idx) {
  if (x.dtype() == dtypes::void_) return x;
  return x.gep(idx);
}
template <class = void> int range_start_of(Ops o) {
  switch (o) {
    case Ops::STAGE: case Ops::REDUCE: case Ops::END: return 1;
    case Ops::WMMA: return 3;
    default: return -1;
  }
}

template <std::same_as<UOp> U> std::optional<U> do_expand(const U& root) {
  std::vector<UOp> expands;
  for (const UOp& s : root.src()) if (s.op() == Ops::UNROLL) expands.push_back(s);
  if (expands.empty()) return std::nullopt;
  if (root.op() == Ops::WMMA) throw Error("expander: Ops.WMMA is not supported (no tensor cores)");
  ExpandArgs expand_args;
  bool same = true;
  for (const UOp& e : expands) same = same && e.arg() == expands[0].arg();
  if (same) expand_args = expand_args_of(expands[0].arg());
  else {
    for (const UOp& e : expands)
      for (const auto& p : expand_args_of(e.arg()))
        if (std::find(expand_args.begin(), expand_args.end(), p) == expand_args.end()) expand_args.push_back(p);
    std::sort(expand_args.begin(), expand_args.end());
  }
  const int expand_sz = int(expand_prod(expand_args));
  const Arg ea = expand_args_arg(expand_args);
  std::vector<UOp> new_srcs;
  for (std::size_t i = 0; i < root.nsrc(); ++i) {
    const UOp& src = root.src(i);
    if (src.op() == Ops::UNROLL) {
      if (src.arg() == ea) { new_srcs.push_back(src.src(0)); continue; }
      std::vector<int> lst = swizzle_args(expand_args, expand_args_of(src.arg()));
      const int cnt = src.dtype().count;
      if (cnt > 1 && !src.dtype().is_ptr) {
        std::vector<int> f;
        for (int l : lst) for (int j = 0; j < cnt; ++j) f.push_back(l * cnt + j);
        lst = std::move(f);
      }
      new_srcs.push_back(gep_lanes(src.src(0), lst));
      continue;
    }
    const int rs = range_start_of(root.op());
    if (rs >= 0 && int(i) >= rs) new_srcs.push_back(src);
    else if (root.op() == Ops::INDEX && i >= 1 && !root.dtype().is_ptr) new_srcs.push_back(src);
    else if (src.dtype().count > 1 && !src.dtype().is_ptr)
      new_srcs.push_back(UOp(Ops::VCAT, src.dtype().scalar().vec(expand_sz * src.dtype().count), std::vector<UOp>(std::size_t(expand_sz), src)));
    else if (src.dtype() == dtypes::void_) new_srcs.push_back(UOp(Ops::STACK, dtypes::void_, std::vector<UOp>(std::size_t(expand_sz), src)));
    else new_srcs.push_back(src.broadcast(expand_sz));
  }
  // a value INDEX on a REG buffer: one scalar INDEX per lane (a STACK of REG pointers cannot be devectorized)
  if (root.op() == Ops::INDEX && !root.dtype().is_ptr && root.src(0).dtype().is_ptr && root.src(0).dtype().addrspace == AddrSpace::REG) {
    std::vector<UOp> idxs;
    for (int j = 0; j < expand_sz; ++j) {
      std::vector<UOp> s;
      for (const UOp& x : new_srcs) s.push_back(x.dtype().is_ptr || x.dtype().count > 1 ? x.gep(j) : x);
      idxs.push_back(UOp(Ops::INDEX, root.dtype(), s, root.arg()));
    }
    return UOp(Ops::UNROLL, root.dtype(), {UOp(Ops::STACK, root.dtype().vec(expand_sz), idxs)}, ea);
  }
  Arg new_arg = root.arg();
  if (root.op() == Ops::GEP) {
    if (root.dtype().count != 1) throw Error("expander: GEP of " + std::to_string(root.dtype().count) + " lanes of an UNROLL");
    const int n = new_srcs[0].dtype().count;
    ArgTuple t;
    for (int j = int(root.arg()[0].as_int()); j < n; j += n / expand_sz) t.push_back(Arg(std::int64_t(j)));
    new_arg = Arg(std::move(t));
  }
  const DType nd = root.dtype().is_ptr ? root.dtype().scalar().vec(expand_sz) : root.dtype().scalar().vec(root.dtype().count * expand_sz);
  const UOp nsrc(root.op(), nd, new_srcs, new_arg);
  return UOp(Ops::UNROLL, root.dtype(), {nsrc}, ea);
}

template <std::same_as<UOp> U> U do_contract(const U& con) {
  const UOp& ex = con.src(0);
  // CONTRACT without UNROLL repeats the element
  if (ex.op() != Ops::UNROLL) {
    if (con.dtype().count == 1) return ex;
    return UOp(Ops::STACK, con.dtype(), std::vector<UOp>(std::size_t(con.dtype().count), ex));
  }
  const ExpandArgs exa = expand_args_of(ex.arg()), ca = expand_args_of(con.arg());
  if (con.dtype() != dtypes::void_ && con.dtype().count != expand_prod(ca)) throw Error("expander: CONTRACT dtype " + con.dtype().repr() + " is wrong");
  ExpandArgs new_ex;
  for (const auto& p : exa) if (std::find(ca.begin(), ca.end(), p) == ca.end()) new_ex.push_back(p);
  std::vector<int> idxs;
  for_each_choice(new_ex, [&](const std::vector<std::int64_t>& vals) {
    for_each_choice(ca, [&](const std::vector<std::int64_t>& lvals) {
      idxs.push_back(expand_arg_to_idx(exa, [&](std::int64_t ax) {
        const std::int64_t* v = axis_value(ca, lvals, ax);
        return v ? v : axis_value(new_ex, vals, ax);
      }));
    });
  });
  return UOp(Ops::UNROLL, con.dtype(), {gep_lanes(ex.src(0), idxs)}, expand_args_arg(new_ex));
}

template <std::same_as<UOp> U> std::optional<U> end_unrolls(const U& u) {
  std::vector<UOp> src{UOp()};
  ExpandArgs args;
  for (std::size_t i = 1; i < u.nsrc(); ++i) {
    if (u.src(i).op() == Ops::UNROLL) for (const auto& p : expand_args_of(u.src(i).arg())) args.push_back(p);
    else src.push_back(u.src(i));
  }
  if (args.empty() && src.size() == u.nsrc()) return std::nullopt;
  src[0] = UOp(Ops::CONTRACT, dtypes::void_, {u.src(0)}, expand_args_arg(args));
  return u.replace({.src = std::move(src)});
}

template <std::same_as<UOp> U> std::optional<U> fix_reduce_unroll(const U& x) {
  std::vector<UOp> rng{x.src(0)};
  ExpandArgs axes;
  bool any = false;
  for (std::size_t i = 1; i < x.nsrc(); ++i) {
    const UOp& s = x.src(i);
    if (s.op() == Ops::RANGE) { rng.push_back(s); continue; }
    any = true;
    if (s.op() == Ops::CONST) continue;
    if (s.op() != Ops::UNROLL) throw Error("expander: REDUCE over " + op_repr(s.op()) + ", not a RANGE or an UNROLL");
    for (const auto& p : expand_args_of(s.arg())) axes.push_back(p);
  }
  if (!any) return std::nullopt;
  if (!axes.empty()) rng[0] = UOp(Ops::CONTRACT, x.dtype().vec(int(expand_prod(axes))), {rng[0]}, expand_args_arg(axes), Arg(std::int64_t(1)));
  return x.replace({.src = std::move(rng)});
}

template <std::same_as<UOp> U> std::optional<U> fix_store_unroll(const U& x) {
  std::vector<UOp> keep{x.src(0), x.src(1)};
  ExpandArgs axes;
  for (std::size_t i = 2; i < x.nsrc(); ++i) {
    if (x.src(i).op() == Ops::UNROLL) for (const auto& p : expand_args_of(x.src(i).arg())) axes.push_back(p);
    else keep.push_back(x.src(i));
  }
  if (axes.empty()) return std::nullopt;
  return UOp(Ops::CONTRACT, dtypes::void_, {x.replace({.src = std::move(keep)})}, expand_args_arg(axes), Arg(std::int64_t(1)));
}

template <class D_ = void>
struct pm_pre_expander_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        // an UPCAST/UNROLL range is the vector of its values
        rule(op<Ops::RANGE>.named("r"_n), [](const UOp& r) -> std::optional<UOp> {
          const AxisType t = range_type(r);
          if (t != AxisType::UNROLL && t != AxisType::UPCAST) return std::nullopt;
          if (r.src(0).op() != Ops::CONST) throw Error("expander: UPCAST/UNROLL of the symbolic range " + r.src(0).render());
          const std::int64_t s = r.vmax().clamped_int64() + 1;
          ArgTuple vals;
          for (std::int64_t i = 0; i < s; ++i) vals.push_back(Arg(i));
          const UOp c = s == 1 ? UOp::const_(r.dtype(), Arg(std::int64_t(0))) : UOp::const_(r.dtype().vec(int(s)), Arg(std::move(vals)));
          return UOp(Ops::UNROLL, r.dtype(), {c}, expand_args_arg({{range_axis(r), s}}));
        }),
        rule(op<Ops::REDUCE>.named("x"_n), [](const UOp& x) { return fix_reduce_unroll(x); }),
        rule(op<Ops::STORE>.named("x"_n), [](const UOp& x) { return fix_store_unroll(x); }));
  }
};

template <class D_ = void>
struct expander_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    constexpr OpSet expandable = GroupOp::ALU | OpSet{Ops::CAST, Ops::BITCAST, Ops::GEP, Ops::WMMA, Ops::LOAD, Ops::STORE, Ops::INDEX,
                                                      Ops::STAGE, Ops::STACK, Ops::REDUCE, Ops::END, Ops::AFTER};
    return rules(
        // push a broadcast through AFTER and END
        rule(op<Ops::AFTER>(op<Ops::STACK>(repeat(var<"x">)).named("b"_n), etc).named("a"_n), [](const UOp& a, const UOp& b, const UOp& x) {
          return UOp(Ops::STACK, x.after(std::vector<UOp>(a.src().begin() + 1, a.src().end())).dtype().vec(int(b.nsrc())),
                     std::vector<UOp>(b.nsrc(), x.after(std::vector<UOp>(a.src().begin() + 1, a.src().end()))));
        }),
        rule(op<Ops::END>(op<Ops::STACK>(repeat(var<"x">)).named("b"_n), etc).named("a"_n), [](const UOp& a, const UOp& b, const UOp& x) {
          const UOp e = x.end(std::vector<UOp>(a.src().begin() + 1, a.src().end()));
          return UOp(Ops::STACK, e.dtype().vec(int(b.nsrc())), std::vector<UOp>(b.nsrc(), e));
        }),
        // an END of an UNROLL range ends the UNROLL
        rule(op<Ops::END>.named("u"_n), [](const UOp& u) { return end_unrolls(u); }),
        // double expand
        rule(op<Ops::UNROLL>(op<Ops::UNROLL>.named("inner"_n)).named("outer"_n), [](const UOp& outer, const UOp& inner) {
          ArgTuple a = inner.arg().as_tuple();
          for (const Arg& x : outer.arg().as_tuple()) a.push_back(x);
          return UOp(Ops::UNROLL, outer.dtype(), {inner.src(0)}, Arg(std::move(a)));
        }),
        rule(op<expandable>.named("root"_n), [](const UOp& root) { return do_expand(root); }),
        rule(op<Ops::CONTRACT>.named("con"_n), [](const UOp& con) { return do_contract(con); }),
        // an empty UNROLL is its source
        rule(op<Ops::UNROLL>(var<"x">).named("u"_n), [](const UOp& u, const UOp& x) -> std::optional<UOp> {
          if (u.arg().size() != 0) return std::nullopt;
          return x;
        }));
  }
};
}  // namespace detail

inline constexpr LazyRules<detail::pm_pre_expander_def<>> pm_pre_expander{};
inline constexpr LazyRules<detail::expander_def<>> expander{};

}  // namespace mg
