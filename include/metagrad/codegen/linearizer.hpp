#pragma once
// tinygrad's codegen/late/linearizer.py: split ENDs to one range each, order sibling loops by adding
// control-flow edges (a RANGE gets the END or RANGE it must come after as an extra source), then a
// priority toposort into the linear list. Gated STOREs become IF / STORE / ENDIF (do_linearize).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "../core/ptr_map.hpp"
#include "../core/uop_map.hpp"
#include "../pattern/graph_rewrite.hpp"
#include "../symbolic/symbolic.hpp"
#include "ranges.hpp"

namespace mg {

namespace detail {
// Python's < on range args (ints..., AxisType)
template <class = void> bool arg_less(const Arg& a, const Arg& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i].is_int() && b[i].is_int()) {
      if (a[i].as_int() != b[i].as_int()) return a[i].as_int() < b[i].as_int();
    } else if (a[i].is<AxisType>() && b[i].is<AxisType>()) {
      if (a[i].as_axis_type() != b[i].as_axis_type()) return a[i].as_axis_type() < b[i].as_axis_type();
    } else if (a[i].is_int() != b[i].is_int()) return a[i].is_int();  // never in practice
  }
  return a.size() < b.size();
}

// tinygrad's x.tuplize order as Python's tuple < computes it: the first element that differs decides,
// and two dtypes with the same (priority, bitsize, name, count) but different pointers are neither less
// nor greater (DType compares by identity for ==). -1 / 1: less / greater; 0: neither.
// (on raw nodes: the sort calls it some ten times per uop, and a handle per step costs atomics)
template <class = void> int py_tuplize_cmp(const Node* a, const Node* b) {
  for (;;) {
    if (a == b) return 0;
    if (a->op != b->op) return a->op < b->op ? -1 : 1;
    if (!(a->arg == b->arg)) return arg_cmp(a->arg, b->arg);
    if (a->dtype != b->dtype) {
      const DType x = a->dtype, y = b->dtype;  // (priority, scalar bitsize, name, count) in turn
      if (x.priority() != y.priority()) return x.priority() < y.priority() ? -1 : 1;
      if (x.info().bitsize != y.info().bitsize) return x.info().bitsize < y.info().bitsize ? -1 : 1;
      if (const int c = x.info().cname.compare(y.info().cname)) return c < 0 ? -1 : 1;
      return x.count < y.count ? -1 : x.count > y.count ? 1 : 0;
    }
    const std::size_t n = std::min(a->src.size(), b->src.size());
    std::size_t i = 0;
    while (i < n && a->src[i].node() == b->src[i].node()) ++i;
    if (i == n) return a->src.size() < b->src.size() ? -1 : a->src.size() > b->src.size() ? 1 : 0;
    a = a->src[i].node(), b = b->src[i].node();  // the first source that differs decides
  }
}

// one END per range, the innermost (highest axis) first
template <std::same_as<UOp> U> std::optional<U> do_split_ends(const U& e) {
  if (e.nsrc() == 2 && e.src(1).op() == Ops::RANGE && e.tag().is_none()) return std::nullopt;
  std::vector<UOp> rs(e.src().begin() + 1, e.src().end());
  std::vector<UOp> rngs = ranges_of(UOp::sink(rs));
  std::sort(rngs.begin(), rngs.end(), [](const UOp& a, const UOp& b) { return arg_less(b.arg(), a.arg()); });
  UOp ret = e.src(0);
  for (const UOp& r : rngs) ret = ret.end({r});
  return ret;
}
template <class D_ = void>
struct pm_split_ends_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(rule(op<Ops::END>.named("e"_n), [](const UOp& e) { return do_split_ends(e); }));
  }
};

// tinygrad's CFGContext: ranges nested in the same END (or the SINK) are siblings and run one after
// another; each RANGE gets an edge to the sibling END before it (or to its parent's RANGE).
// deps[u] (the RANGEs and ENDs at or below u) is a bitset over those nodes for membership, plus the
// ENDs among them in first-seen order (the order nesting is found in); a node whose sources add no END
// shares its first source's list, so most nodes cost one OR of a word or two.
struct CFGContext {
  UOpMap<UOp> edges;
  // a template: only a translation unit that linearizes compiles it
  template <std::same_as<UOp> U> explicit CFGContext(const U& sink) {
    const std::vector<const Node*> topo = topo_nodes(sink.node());
    PtrMap<std::uint32_t> pos(topo.size()), bit;
    for (std::size_t i = 0; i < topo.size(); ++i) {
      pos.set(topo[i], std::uint32_t(i));
      if (topo[i]->op == Ops::RANGE || topo[i]->op == Ops::END) bit.set(topo[i], std::uint32_t(bit.size()));
    }
    const std::size_t words = (bit.size() + 63) / 64;
    std::vector<std::uint64_t> bits(topo.size() * words);
    auto dep_of = [&](std::size_t at, const Node* x) -> bool {  // x is in deps of topo[at]
      const std::uint32_t* b = bit.find(x);
      return b && ((bits[at * words + *b / 64] >> (*b % 64)) & 1);
    };
    NodeLists lists;
    std::vector<NodeLists::List> ends(topo.size());
    std::vector<std::pair<UOp, UOp>> nesting;  // END -> the END or SINK it is nested in, in insertion order
    PtrMap<char> nested;
    for (std::size_t i = 0; i < topo.size(); ++i) {
      const Borrowed held(topo[i]);
      const UOp& u = held.get();
      std::uint64_t* mine = bits.data() + i * words;
      for (const UOp& s : u.src()) {
        const std::uint32_t p = *pos.find(s.node());
        for (std::size_t w = 0; w < words; ++w) mine[w] |= bits[p * words + w];
      }
      NodeLists::List l = lists.merge(u.src(), [&](const Node* s) { return ends[*pos.find(s)]; });
      if (u.op() == Ops::END || u.op() == Ops::SINK)
        for (const Node* x : lists.view(l))
          if ((u.op() == Ops::SINK || dep_of(*pos.find(x), u.src(1).node())) && !nested.contains(x)) {
            nested.set(x, 1);
            nesting.emplace_back(UOp::from_node(x), u);
          }
      if (u.op() == Ops::RANGE || u.op() == Ops::END) {
        const std::uint32_t b = *bit.find(u.node());
        mine[b / 64] |= std::uint64_t(1) << (b % 64);
      }
      if (u.op() == Ops::END) l = lists.copy(l, [](const Node*) { return true; }, u.node());
      ends[i] = l;
    }
    std::vector<std::pair<UOp, std::vector<UOp>>> siblings;
    for (const auto& [k, vv] : nesting) {
      auto it = std::find_if(siblings.begin(), siblings.end(), [&](const auto& p) { return p.first == vv; });
      if (it == siblings.end()) siblings.push_back({vv, {k}});
      else it->second.push_back(k);
    }
    for (auto& [k, v] : siblings) {
      // ranges that depend on other siblings are scheduled after them
      auto count = [&](const UOp& x) {
        const std::size_t at = *pos.find(x.node());
        return std::count_if(v.begin(), v.end(), [&](const UOp& y) { return dep_of(at, y.node()); });
      };
      std::vector<UOp> order = v;
      stable_sort_by(order, [&](const UOp& a, const UOp& b) { return count(a) < count(b); });
      std::vector<UOp> firsts = order;
      if (k.op() != Ops::SINK) firsts.insert(firsts.begin(), k.src(1));
      const std::size_t off = k.op() == Ops::SINK ? 1 : 0;
      for (std::size_t i = 0; i + off < order.size(); ++i) {
        const UOp& x = firsts[i];
        const UOp& y = order[i + off];
        edges[y.src(1)] = x;
      }
    }
  }
};

template <class D_ = void>
struct pm_add_control_flow_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(rule(op<Ops::RANGE>.named("x"_n), [](CFGContext& ctx, const UOp& x) -> std::optional<UOp> {
      auto it = ctx.edges.find(x);
      if (it == ctx.edges.end()) return std::nullopt;
      std::vector<UOp> src(x.src().begin(), x.src().end());
      src.push_back(it->second);
      return x.replace({.src = std::move(src)});
    }));
  }
};
}  // namespace detail

inline constexpr LazyRules<detail::pm_split_ends_def<>> pm_split_ends{};
inline constexpr LazyRules<detail::pm_add_control_flow_def<>> pm_add_control_flow{};

// tinygrad's linearize: a toposort with priorities; uops that run more often (inside more loops) come
// later, defines first, loads early, stores late
template <std::same_as<UOp> U> std::vector<U> linearize(const U& sink) {
  const std::vector<const detail::Node*> lst = detail::topo_nodes(sink.node());
  detail::PtrMap<int> out_degree(lst.size());
  detail::RangeMap rm;
  detail::PtrMap<std::int64_t> trips;  // a range's trip count (its vmax + 1)
  // tinygrad's priority key (run_count, priority, extra): extra is the PARAM slot or DEFINE_VAR's
  // (name, min, max), compared as Python tuples; the node rides along for the tuplize tie-break
  struct Key {
    std::int64_t run_count;
    int p;
    Ops head;  // the tuplize's first field (the op), kept here so most ties are broken without reading the node
    std::int64_t e0;
    std::string_view es;
    std::int64_t e1, e2;
    const detail::Node* n;
  };
  std::vector<Key> prio(lst.size());
  rm.fill(lst);
  // most nodes share their range list with a source (RangeMap hands out the same pool slice), so the
  // product is kept for the last list seen
  detail::NodeList last{0, UINT32_MAX};
  std::int64_t last_count = 1;
  for (std::size_t i = lst.size(); i-- > 0;) {
    const detail::Borrowed held(lst[i]);
    const UOp& u = held.get();
    for (const UOp& s : u.src()) ++out_degree.at(s.node());
    const detail::NodeList l = rm.list(u);
    if (l.off != last.off || l.len != last.len) {
      last = l, last_count = 1;
      for (const detail::Node* r : rm.view(l)) {
        std::int64_t* n = trips.find(r);
        if (!n) n = &trips.set(r, std::int64_t(UOp::from_node(r).vmax().clamped_int64()) + 1);
        last_count = __builtin_mul_overflow(last_count, *n, &last_count) ? INT64_MAX : last_count;
      }
    }
    const std::int64_t run_count = last_count;
    int p = 0;
    std::int64_t e0 = 0, e1 = 0, e2 = 0;
    std::string_view es;
    switch (u.op()) {
      case Ops::PARAM: p = -20, e0 = u.arg().as_param().slot; break;
      case Ops::DEFINE_VAR: p = -19, es = u.arg()[0].as_str(), e1 = u.arg()[1].as_int(), e2 = u.arg()[2].as_int(); break;
      case Ops::DEFINE_REG: p = -18; break;
      case Ops::DEFINE_LOCAL: p = -17; break;
      case Ops::LOAD: p = -1; break;
      case Ops::STORE: p = 1; break;
      case Ops::RANGE: p = 5; break;
      case Ops::END: p = -5; break;
      default: break;
    }
    prio[i] = Key{run_count, p, u.op(), e0, es, e1, e2, u.node()};
  }
  // number the uops in the "ideal" order: by priority, then by tinygrad's tuplize (TUPLE_ORDER=1)
  // (the key field by field, the common case decided by the first two; then one three-way tuplize
  // walk, most of linearize's time; ties keep the toposort's order, as Python's stable sort does)
  std::vector<std::size_t> idx(lst.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    const Key &x = prio[a], &y = prio[b];
    if (x.run_count != y.run_count) return x.run_count < y.run_count;
    if (x.p != y.p) return x.p < y.p;
    if (x.e0 != y.e0) return x.e0 < y.e0;
    if (x.es != y.es) return x.es < y.es;
    if (x.e1 != y.e1) return x.e1 < y.e1;
    if (x.e2 != y.e2) return x.e2 < y.e2;
    if (x.head != y.head) return x.head < y.head;
    if (const int t = detail::py_tuplize_cmp(x.n, y.n); t != 0) return t < 0;
    return a < b;
  });
  detail::PtrMap<std::size_t> nkey(lst.size());
  for (std::size_t i = 0; i < idx.size(); ++i) nkey.set(lst[idx[i]], i);
  // then toposort as close to that order as possible, from the sink back
  // (a max-heap on a vector: <queue> would cost every includer of metagrad.hpp for this one use)
  using Entry = std::pair<std::size_t, const detail::Node*>;
  std::vector<Entry> heap{{*nkey.find(sink.node()), sink.node()}};
  std::vector<UOp> out;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end());
    const detail::Node* n = heap.back().second;
    heap.pop_back();
    out.push_back(UOp::from_node(n));
    for (const UOp& v : out.back().src())
      if (--*out_degree.find(v.node()) == 0) {
        heap.emplace_back(*nkey.find(v.node()), v.node());
        std::push_heap(heap.begin(), heap.end());
      }
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// tinygrad's pm_linearize_cleanups by line_rewrite: a gated STORE becomes IF / STORE / ENDIF
template <std::same_as<UOp> U> std::vector<U> add_ifs(const std::vector<U>& lst) {
  std::vector<UOp> out;
  UOpMap<UOp> replaced;
  for (const UOp& u : lst) {
    std::vector<UOp> src;
    for (const UOp& s : u.src()) {
      auto it = replaced.find(s);
      src.push_back(it == replaced.end() ? s : it->second);
    }
    UOp nu = u.replace({.src = std::move(src)});
    if (nu.op() == Ops::IF || nu.op() == Ops::ENDIF) throw Error("linearize: IF/ENDIF are not allowed in the graph");
    if (nu.op() == Ops::STORE && nu.nsrc() == 3 && nu.src(2).dtype() == dtypes::bool_) {
      const UOp st = UOp(Ops::STORE, dtypes::void_, {nu.src(0), nu.src(1)});
      const UOp mif = UOp(Ops::IF, dtypes::void_, {nu.src(2), nu.src(0)});
      out.push_back(mif);
      out.push_back(st);
      out.push_back(UOp(Ops::ENDIF, dtypes::void_, {mif}));
      replaced[u] = st;
      continue;
    }
    replaced[u] = nu;
    out.push_back(nu);
  }
  return out;
}

}  // namespace mg
