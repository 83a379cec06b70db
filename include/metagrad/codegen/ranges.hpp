#pragma once
// tinygrad's range bookkeeping on UOps, for the codegen passes: ended_ranges (the ranges an END, a
// REDUCE or an AFTER closes), ranges (the open ranges a node is inside of). get_idx / get_valid, the two
// halves of a gated index cond.where(idx, Invalid), are in core/uop.hpp (the symbolic rules use them too).
#include <algorithm>
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
class RangeMap {
 public:
  const std::vector<UOp>& of(const UOp& u) {
    if (const auto* r = memo_.find(u.node())) return *r;
    // sources first, walking only into nodes not asked about before (a toposort of u would visit the
    // whole graph below it again for every node asked about)
    std::vector<std::pair<const UOp*, bool>> stack{{&u, false}};
    while (!stack.empty()) {
      const auto [np, expanded] = stack.back();
      stack.pop_back();
      const UOp& n = *np;
      if (memo_.contains(n.node())) continue;
      if (!expanded) {
        stack.emplace_back(np, true);
        const auto src = n.src();
        for (auto it = src.rbegin(); it != src.rend(); ++it)
          if (!memo_.contains(it->node())) stack.emplace_back(&*it, false);
        continue;
      }
      std::vector<UOp> ret;
      auto add = [&](const UOp& x) { if (std::find(ret.begin(), ret.end(), x) == ret.end()) ret.push_back(x); };
      if (n.op() == Ops::RANGE) ret.push_back(n);
      for (const UOp& s : n.src()) for (const UOp& x : *memo_.find(s.node())) add(x);
      for (const UOp& er : ended_ranges(n)) {
        auto drop = [&](const UOp& x) { ret.erase(std::remove(ret.begin(), ret.end(), x), ret.end()); };
        if (er.op() == Ops::RANGE) drop(er);
        else for (const UOp& x : *memo_.find(er.node())) drop(x);
      }
      memo_.set(n.node(), std::move(ret));
    }
    return *memo_.find(u.node());
  }
  bool in(const UOp& u, const UOp& r) {
    const auto& v = of(u);
    return std::find(v.begin(), v.end(), r) != v.end();
  }

 private:
  PtrMap<std::vector<UOp>> memo_;
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
