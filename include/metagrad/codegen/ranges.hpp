#pragma once
// tinygrad's range bookkeeping on UOps, for the codegen passes: ended_ranges (the ranges an END, a
// REDUCE or an AFTER closes), ranges (the open ranges a node is inside of). get_idx / get_valid, the two
// halves of a gated index cond.where(idx, Invalid), are in core/uop.hpp (the symbolic rules use them too).
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "../core/ptr_map.hpp"
#include "../core/uop.hpp"

namespace mg::detail {

// axis id and type of a RANGE: its arg is (axis_id, ..., AxisType)
template <class = void> std::int64_t range_axis(const UOp& r) { return r.arg()[0].as_int(); }
template <class = void> AxisType range_type(const UOp& r) { return r.arg()[r.arg().size() - 1].as_axis_type(); }

template <class = void> std::vector<UOp> ended_ranges(const UOp& u) {
  switch (u.op()) {
    case Ops::REDUCE: case Ops::END: case Ops::STAGE: return {u.src().begin() + 1, u.src().end()};
    case Ops::AFTER: {
      std::vector<UOp> out;
      for (std::size_t i = 1; i < u.nsrc(); ++i)
        for (UOp& r : ended_ranges(u.src(i))) out.push_back(std::move(r));
      return out;
    }
    default: return {};
  }
}

// Per-node lists of nodes for the walks below, all in one pool: a list is an offset and a length. A node
// whose sources' lists merge to the first non-empty one of them (most nodes) gets that list itself, so a
// walk costs no allocation and no reference count per node. (Class templates, as the rest of codegen:
// only a translation unit that compiles kernels compiles them.)
struct NodeList { std::uint32_t off = 0, len = 0; };
template <class = void>
class NodeListsT {
 public:
  using List = NodeList;
  std::span<const Node* const> view(List l) const { return {pool_.data() + l.off, l.len}; }
  // the lists of srcs (list_of(node) gives each) joined without repeats, first seen first; with a head,
  // the head first and a new list always
  template <class F> List merge(std::span<const UOp> srcs, F&& list_of, const Node* head = nullptr) {
    if (!head) {
      List first;
      bool shared = true;
      for (std::size_t i = 0; i < srcs.size() && shared; ++i) {
        const List l = list_of(srcs[i].node());
        if (!l.len || (l.off == first.off && l.len == first.len)) continue;
        if (!first.len) { first = l; continue; }
        for (const Node* x : view(l)) if (!(shared = has(first, x))) break;
      }
      if (shared) return first;
    }
    const std::size_t off = pool_.size();
    if (head) pool_.push_back(head);
    for (const UOp& s : srcs) {
      const List l = list_of(s.node());
      for (std::uint32_t i = 0; i < l.len; ++i) {
        const Node* x = pool_[l.off + i];
        if (std::find(pool_.begin() + std::ptrdiff_t(off), pool_.end(), x) == pool_.end()) pool_.push_back(x);
      }
    }
    return close(off);
  }
  // a new list: l's nodes that keep(node) allows, then tail if given
  template <class Keep> List copy(List l, Keep&& keep, const Node* tail = nullptr) {
    const std::size_t off = pool_.size();
    for (std::uint32_t i = 0; i < l.len; ++i)
      if (const Node* x = pool_[l.off + i]; keep(x)) pool_.push_back(x);
    if (tail) pool_.push_back(tail);
    return close(off);
  }
  bool has(List l, const Node* x) const {
    const auto v = view(l);
    return std::find(v.begin(), v.end(), x) != v.end();
  }

 private:
  List close(std::size_t off) const { return {std::uint32_t(off), std::uint32_t(pool_.size() - off)}; }
  std::vector<const Node*> pool_;
};
using NodeLists = NodeListsT<>;

// tinygrad's UOp.ranges for every node under the roots asked about, each computed once (in insertion
// order, like the dict tinygrad keeps). The graph must stay alive while the map is used.
template <class = void>
class RangeMapT {
 public:
  // the open ranges at u, as nodes; the span lasts until the next call (the pool may grow)
  std::span<const Node* const> nodes(const UOp& u) { return lists_.view(set_of(u.node())); }
  std::vector<UOp> of(const UOp& u) {
    std::vector<UOp> out;
    for (const Node* r : nodes(u)) out.push_back(UOp::from_node(r));
    return out;
  }
  bool in(const UOp& u, const UOp& r) { return lists_.has(set_of(u.node()), r.node()); }
  // every node of a toposort at once, in its order (sources first: no walk needed); then each
  // node's list, an offset into one pool whose span lasts until the next call that adds to it
  void fill(std::span<const Node* const> topo) {
    for (const Node* n : topo) if (!memo_.contains(n)) memo_.set(n, make(n));
  }
  NodeList list(const UOp& u) { return set_of(u.node()); }
  std::span<const Node* const> view(NodeList l) const { return lists_.view(l); }

 private:
  using List = NodeList;
  List set_of(const Node* root) {
    if (const List* s = memo_.find(root)) return *s;
    // sources first, walking only into nodes not asked about before (a toposort of u would visit the
    // whole graph below it again for every node asked about)
    std::vector<std::pair<const Node*, bool>> stack{{root, false}};
    while (!stack.empty()) {
      const auto [n, expanded] = stack.back();
      stack.pop_back();
      if (memo_.contains(n)) continue;
      if (!expanded) {
        stack.emplace_back(n, true);
        for (auto it = n->src.rbegin(); it != n->src.rend(); ++it)
          if (!memo_.contains(it->node())) stack.emplace_back(it->node(), false);
        continue;
      }
      memo_.set(n, make(n));
    }
    return *memo_.find(root);
  }
  // the sources' ranges in order without repeats, n itself first if it is a RANGE, less what n ends
  List make(const Node* n) {
    const List l = lists_.merge(n->src, [&](const Node* s) { return *memo_.find(s); }, n->op == Ops::RANGE ? n : nullptr);
    if (n->op != Ops::REDUCE && n->op != Ops::END && n->op != Ops::STAGE && n->op != Ops::AFTER) return l;
    std::vector<const Node*> ended;
    for (const UOp& er : ended_ranges(UOp::from_node(n))) {
      if (er.op() == Ops::RANGE) ended.push_back(er.node());
      else for (const Node* x : lists_.view(*memo_.find(er.node()))) ended.push_back(x);
    }
    return lists_.copy(l, [&](const Node* x) { return std::find(ended.begin(), ended.end(), x) == ended.end(); });
  }
  PtrMap<List> memo_;
  NodeLists lists_;
};
using RangeMap = RangeMapT<>;

template <class = void> std::vector<UOp> ranges_of(const UOp& u) { RangeMap m; return m.of(u); }


// std::stable_sort without its temporary buffer (libstdc++ 12's get_temporary_buffer is deprecated in
// C++20, which clang reports): a sort of positions, ties broken by position
template <class T, class Less>
void stable_sort_by(std::vector<T>& v, Less less) {
  std::vector<std::size_t> pos(v.size());
  for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = i;
  std::sort(pos.begin(), pos.end(), [&](std::size_t a, std::size_t b) {
    if (less(v[a], v[b])) return true;
    if (less(v[b], v[a])) return false;
    return a < b;
  });
  std::vector<T> out;
  out.reserve(v.size());
  for (std::size_t i : pos) out.push_back(std::move(v[i]));
  v = std::move(out);
}

template <class = void> bool in_list(const std::vector<UOp>& v, const UOp& u) { return std::find(v.begin(), v.end(), u) != v.end(); }

}  // namespace mg::detail
