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

// tinygrad's UOp.ranges for every node under the roots asked about, each computed once (in insertion
// order, like the dict tinygrad keeps). The graph must stay alive while the map is used.
// The sets live in one pool of raw node pointers, and a node whose sources bring no range its first
// ranged source lacks (most of a kernel) shares that source's set: no allocation and no reference
// count per node.
class RangeMap {
 public:
  // the open ranges at u, as nodes; the span lasts until the next call (the pool may grow)
  std::span<const Node* const> nodes(const UOp& u) {
    const Set s = set_of(u.node());
    return {pool_.data() + s.off, s.len};
  }
  std::vector<UOp> of(const UOp& u) {
    std::vector<UOp> out;
    for (const Node* r : nodes(u)) out.push_back(UOp::from_node(r));
    return out;
  }
  bool in(const UOp& u, const UOp& r) {
    const auto v = nodes(u);
    return std::find(v.begin(), v.end(), r.node()) != v.end();
  }

 private:
  struct Set { std::uint32_t off = 0, len = 0; };
  bool has(Set s, const Node* x) const {
    for (std::uint32_t i = 0; i < s.len; ++i) if (pool_[s.off + i] == x) return true;
    return false;
  }
  Set set_of(const Node* root) {
    if (const Set* s = memo_.find(root)) return *s;
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
  Set make(const Node* n) {
    const bool ends = n->op == Ops::REDUCE || n->op == Ops::END || n->op == Ops::STAGE || n->op == Ops::AFTER;
    if (n->op != Ops::RANGE && !ends) {
      Set first;
      bool shared = true;
      for (const UOp& s : n->src) {
        const Set ss = *memo_.find(s.node());
        if (!ss.len || (ss.off == first.off && ss.len == first.len)) continue;
        if (!first.len) { first = ss; continue; }
        for (std::uint32_t i = 0; i < ss.len && shared; ++i) shared = has(first, pool_[ss.off + i]);
        if (!shared) break;
      }
      if (shared) return first;
    }
    const std::size_t off = pool_.size();
    auto add = [&](const Node* x) {
      for (std::size_t j = off; j < pool_.size(); ++j) if (pool_[j] == x) return;
      pool_.push_back(x);
    };
    if (n->op == Ops::RANGE) pool_.push_back(n);
    for (const UOp& s : n->src) {
      const Set ss = *memo_.find(s.node());
      for (std::uint32_t i = 0; i < ss.len; ++i) add(pool_[ss.off + i]);
    }
    if (ends) {
      auto drop = [&](const Node* x) { pool_.erase(std::remove(pool_.begin() + std::ptrdiff_t(off), pool_.end(), x), pool_.end()); };
      for (const UOp& er : ended_ranges(UOp::from_node(n))) {
        if (er.op() == Ops::RANGE) drop(er.node());
        else {
          const Set es = *memo_.find(er.node());  // in the pool before off: dropping cannot move it
          for (std::uint32_t i = 0; i < es.len; ++i) drop(pool_[es.off + i]);
        }
      }
    }
    return {std::uint32_t(off), std::uint32_t(pool_.size() - off)};
  }
  PtrMap<Set> memo_;
  std::vector<const Node*> pool_;
};

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
