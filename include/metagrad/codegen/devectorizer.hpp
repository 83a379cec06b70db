#pragma once
// tinygrad's codegen/late/devectorizer.py, the parts scalar CPU code needs: REDUCE becomes a DEFINE_REG
// accumulator (pm_reduce), an INDEX used as a value becomes a LOAD (pm_add_loads), vector ALU ops become
// STACKs of scalar ones (devectorize_alu), gated indices are simplified under their gate
// (load_store_indexing), and CONST/GEP/STACK take the explicit forms renderers expect (pm_render).
#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "../pattern/graph_rewrite.hpp"
#include "../symbolic/symbolic.hpp"
#include "../symbolic/valid.hpp"
#include "ranges.hpp"

namespace mg {

namespace detail {
struct ReduceContext {
  std::int64_t acc_num = 0;
};

// [0 1 2 3 4 5 6 7] -> [0+4, 1+5, 2+6, 3+7] when the input is wider than the output
inline std::vector<UOp> horizontal_reduce(const UOp& inp, DType out) {
  if (inp.dtype() == out) return {inp};
  const int amount = inp.dtype().count / out.count;
  std::vector<UOp> lst;
  for (int i = 0; i < amount; ++i) {
    std::vector<int> idx;
    for (int j = i; j < inp.dtype().count; j += amount) idx.push_back(j);
    lst.push_back(inp.gep(idx));
  }
  return lst;
}

template <std::same_as<UOp> U> U reduce_to_acc(ReduceContext& ctx, const U& red) {
  const UOp inp = red.src(0);
  const std::vector<UOp> reduce_range(red.src().begin() + 1, red.src().end());
  const Ops op = red.arg()[0].as_op();
  std::vector<UOp> lst = horizontal_reduce(inp, red.dtype());
  for (const UOp& x : lst)
    if (x.dtype() != red.dtype()) throw Error("reduce_to_acc: horizontal reduction gives " + x.dtype().repr() + ", need " + red.dtype().repr());
  UOp acc;
  const UOp zero = UOp::const_(dtypes::weakint, 0);
  if (!reduce_range.empty()) {
    const std::vector<UOp> topo = inp.toposort();
    std::vector<UOp> ended, input_ranges;
    for (const UOp& x : topo) if (x.op() == Ops::END) for (UOp& r : ended_ranges(x)) ended.push_back(std::move(r));
    for (const UOp& x : topo)
      if (x.op() == Ops::RANGE && !in_list(reduce_range, x) && !in_list(ended, x)) input_ranges.push_back(x);
    const UOp identity = UOp::const_(red.dtype(), identity_element(op, red.dtype().scalar()));
    acc = UOp(Ops::DEFINE_REG, red.dtype().ptr(1, AddrSpace::REG), {}, Arg(ctx.acc_num++));
    const UOp acc_init = acc.after(input_ranges).index({zero}).store(identity);
    std::vector<UOp> deps{acc_init};
    deps.insert(deps.end(), reduce_range.begin(), reduce_range.end());
    lst.insert(lst.begin(), acc.after(deps).index({zero}));  // the accumulator is the first element
  }
  UOp ret = lst[0];
  for (std::size_t i = 1; i < lst.size(); ++i) ret = ret.alu(op, lst[i]);
  if (reduce_range.empty()) return ret;
  const UOp end = acc.index({zero}).store(ret).end(reduce_range).rtag(Arg("mergeable"));
  return acc.after({end}).index({zero});
}

// merge the ENDs reduce_to_acc made over the same ranges in the same nesting; ENDs at different depths
// get clones of the RANGEs, so every RANGE has one END
template <std::same_as<UOp> U> std::optional<U> merge_reduce_ends(const U& sink) {
  const std::vector<UOp> topo = sink.toposort();
  std::vector<std::pair<std::vector<UOp>, std::vector<UOp>>> range_to_ends;
  std::int64_t next_axis = 0;
  for (const UOp& u : topo) {
    if (u.op() == Ops::RANGE) next_axis = std::max(next_axis, range_axis(u) + 1);
    if (u.op() != Ops::END || !u.tag().is<std::string>() || u.tag().as_str() != "mergeable") continue;
    std::vector<UOp> key(u.src().begin() + 1, u.src().end());
    auto it = std::find_if(range_to_ends.begin(), range_to_ends.end(), [&](const auto& p) { return p.first == key; });
    if (it == range_to_ends.end()) range_to_ends.push_back({key, {u}});
    else it->second.push_back(u);
  }
  RangeMap rm;
  std::vector<std::pair<UOp, UOp>> subs;
  for (auto& [r, ends] : range_to_ends) {
    if (ends.size() <= 1) continue;
    std::vector<std::pair<std::vector<UOp>, std::vector<UOp>>> by_ctx;
    for (const UOp& e : ends) {
      std::vector<UOp> k = rm.of(e);
      std::sort(k.begin(), k.end(), [](const UOp& a, const UOp& b) { return a.node() < b.node(); });
      auto it = std::find_if(by_ctx.begin(), by_ctx.end(), [&](const auto& p) { return p.first == k; });
      if (it == by_ctx.end()) by_ctx.push_back({k, {e}});
      else it->second.push_back(e);
    }
    for (std::size_t i = 0; i < by_ctx.size(); ++i) {
      const auto& group = by_ctx[i].second;
      std::vector<UOp> tr = r;
      std::vector<std::pair<UOp, UOp>> remap;
      if (i > 0) {
        for (std::size_t j = 0; j < r.size(); ++j) {
          ArgTuple a = r[j].arg().as_tuple();
          a[0] = Arg(next_axis + std::int64_t(j));
          tr[j] = r[j].replace({.arg = Arg(std::move(a))});
          remap.emplace_back(r[j], tr[j]);
        }
        next_axis += std::int64_t(r.size());
      }
      UOp merged;
      if (group.size() == 1) merged = i > 0 ? group[0].substitute(remap) : group[0];
      else {
        std::vector<UOp> stores;
        for (const UOp& e : group) stores.push_back(i > 0 ? e.substitute(remap).src(0) : e.src(0));
        merged = UOp::group(stores).end(tr);
      }
      for (const UOp& e : group) subs.emplace_back(e, merged);
    }
  }
  if (subs.empty()) return std::nullopt;
  return sink.substitute(subs);
}

struct pm_reduce_def {
  template <class T> static constexpr auto make() {
    return rules(rule(op<Ops::REDUCE>.named("red"_n), [](ReduceContext& ctx, UOp red) { return reduce_to_acc(ctx, red); }),
                 rule(op<Ops::SINK>.named("sink"_n), [](UOp sink) { return merge_reduce_ends(sink); }));
  }
};

struct pm_add_loads_def {
  template <class T> static constexpr auto make() {
    return rules(
        // an INDEX used as a value is a load
        rule(op<Ops::INDEX>.named("idx"_n), [](UOp idx) -> std::optional<UOp> {
          if (idx.dtype().is_ptr) return std::nullopt;
          if (!idx.src(0).dtype().is_ptr) throw Error("add_load: INDEX into " + idx.src(0).dtype().repr() + ", which is not a pointer");
          return UOp(Ops::LOAD, idx.dtype().base(), {idx.replace({.dtype = idx.src(0).dtype()})});
        }),
        // but not the one a STORE writes through
        rule(op<Ops::STORE>(op<Ops::LOAD>, etc).named("s"_n), [](UOp s) {
          std::vector<UOp> src(s.src().begin(), s.src().end());
          src[0] = s.src(0).src(0);
          return s.replace({.src = std::move(src)});
        }),
        rule(op<Ops::LOAD>(op<Ops::LOAD>, etc).named("l"_n), [](UOp l) {
          std::vector<UOp> src(l.src().begin(), l.src().end());
          src[0] = l.src(0).src(0);
          return l.replace({.src = std::move(src)});
        }));
  }
};

template <std::same_as<UOp> U> std::optional<U> no_vectorized_alu(const U& alu) {
  if (alu.dtype().vcount() == 1) return std::nullopt;
  if (alu.op() == Ops::WHERE && is_invalid(alu.src(2))) return std::nullopt;
  std::vector<UOp> alus;
  for (int i = 0; i < alu.dtype().vcount(); ++i) {
    std::vector<UOp> src;
    for (const UOp& s : alu.src()) src.push_back(s.gep(i));
    alus.push_back(UOp(alu.op(), alu.dtype().scalar(), src, alu.arg()));
  }
  return UOp(Ops::STACK, alu.dtype(), alus);
}

struct devectorize_def {
  template <class T> static constexpr auto make() {
    return rules(
        // CAST after AFTER
        rule(op<Ops::AFTER>(op<Ops::CAST>.named("c"_n), etc).named("a"_n), [](UOp a, UOp c) {
          return c.src(0).after(std::vector<UOp>(a.src().begin() + 1, a.src().end())).cast(c.dtype());
        }),
        rule(op<GroupOp::ALU | OpSet{Ops::CAST, Ops::BITCAST}>.named("alu"_n), [](UOp alu) { return no_vectorized_alu(alu); }),
        // a gated index simplified under its gate
        rule(op<Ops::INDEX>(var<"buf">, invalid_gate_v<T>), [](UOp buf, UOp cond, UOp x, UOp) -> std::optional<UOp> {
          UOp idx = uop_given_valid(cond, x);
          if (!idx || idx == x) return std::nullopt;
          return buf.index({idx.valid(cond)}, true);
        }));
  }
};

struct pm_render_def {
  template <class T> static constexpr auto make() {
    return rules(
        // for rendering, vectors are explicit STACKs
        rule(op<Ops::CONST>.named("c"_n), [](UOp c) -> std::optional<UOp> {
          if (c.dtype().vcount() == 1) return std::nullopt;
          return UOp(Ops::STACK, c.dtype(), std::vector<UOp>(std::size_t(c.dtype().vcount()), UOp::const_(c.dtype().scalar(), c.arg())));
        }),
        rule(op<Ops::GEP>.named("gep"_n), [](UOp gep) -> std::optional<UOp> {
          if (gep.arg().size() > 1) {
            std::vector<UOp> src;
            for (const Arg& i : gep.arg().as_tuple()) src.push_back(gep.src(0).gep(int(i.as_int())));
            return UOp(Ops::STACK, gep.dtype(), src);
          }
          if (gep.src(0).dtype().vcount() == 1 && gep.arg()[0].as_int() == 0) return gep.src(0);
          return std::nullopt;
        }),
        rule(op<Ops::STACK>(var<"x">), [](UOp x) { return x; }));
  }
};
}  // namespace detail

inline constexpr LazyRules<detail::pm_reduce_def> pm_reduce{};
inline constexpr LazyRules<detail::pm_add_loads_def> pm_add_loads{};
inline constexpr LazyRules<detail::devectorize_def> devectorize{};
inline constexpr LazyRules<detail::pm_render_def> pm_render{};

}  // namespace mg
