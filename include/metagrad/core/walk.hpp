#pragma once
// Graph walks over UOps: toposort, substitute, addrspace. All iterative: a 100,000-deep chain is fine.
#include <optional>
#include <utility>
#include <vector>

#include "ptr_map.hpp"
#include "uop.hpp"

namespace mg {

namespace detail {
// Sources before users, each node once, in tinygrad's order (depth first, sources left to right), as
// raw nodes: for a walk that only reads, whose caller's handle on root keeps every node alive. No
// reference count is touched (a handle per node is an atomic add on every node of the graph, and an
// atomic subtract when the vector dies).
inline std::vector<const Node*> topo_nodes(const Node* root) {
  std::vector<const Node*> order;
  if (!root) return order;
  // done nodes: marked with the walk lane's epoch when this walk holds it, else in a table
  const LaneHold lane;
  const std::uint32_t epoch = lane.epoch();
  std::optional<PtrMap<char>> seen;
  if (!epoch) seen.emplace();
  auto done = [&](const Node* n) { return epoch ? n->walk_epoch == epoch : seen->contains(n); };
  std::vector<std::pair<const Node*, bool>> stack;
  order.reserve(64), stack.reserve(64);
  stack.emplace_back(root, false);
  while (!stack.empty()) {
    auto [n, visited] = stack.back();
    stack.pop_back();
    if (done(n)) continue;
    if (visited) {
      if (epoch) n->walk_epoch = epoch;
      else seen->set(n, 1);
      order.push_back(n);
      continue;
    }
    stack.emplace_back(n, true);
    for (auto it = n->src.rbegin(); it != n->src.rend(); ++it)
      if (!done(it->node())) stack.emplace_back(it->node(), false);
  }
  return order;
}
// whether needle is root or below it: a walk on raw nodes that stops at the needle (a table, not the
// walk lane: it runs inside rewrites that hold the lane)
inline bool in_toposort(const Node* needle, const Node* root) {
  if (!root) return false;
  std::vector<const Node*> stack{root};
  PtrMap<char> seen;
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (n == needle) return true;
    if (seen.contains(n)) continue;
    seen.set(n, 1);
    for (const UOp& x : n->src) stack.push_back(x.node());
  }
  return false;
}
inline bool in_toposort(const UOp& needle, const UOp& root) { return in_toposort(needle.node(), root.node()); }
}  // namespace detail

// The same walk, as handles (made once, at the end, in a vector of the exact size).
inline std::vector<UOp> UOp::toposort() const {
  std::vector<UOp> out;
  const std::vector<const detail::Node*> order = detail::topo_nodes(p_);
  out.reserve(order.size());
  for (const detail::Node* n : order) out.push_back(from_node(n));
  return out;
}

// The address space a value lives in (the seed's derivation): PARAM's own, BUFFER global, LOAD registers.
template <class> std::optional<AddrSpace> UOp::addrspace() const {
  std::optional<AddrSpace> result;
  detail::PtrMap<std::optional<AddrSpace>> memo;
  for (const UOp& u : toposort()) {
    std::optional<AddrSpace> r;
    const Ops o = u.op();
    if (o == Ops::PARAM) r = u.arg().is<ParamArg>() ? u.arg().as_param().addrspace : AddrSpace::GLOBAL;
    else if (o == Ops::BUFFER) r = AddrSpace::GLOBAL;
    else if (o == Ops::DEFINE_LOCAL) r = AddrSpace::LOCAL;
    else if (o == Ops::DEFINE_REG || o == Ops::LOAD) r = AddrSpace::REG;
    else if ((o == Ops::INDEX || o == Ops::CAST || o == Ops::AFTER || o == Ops::REDUCE || o == Ops::GEP ||
              GroupOp::Movement.contains(o)) && u.nsrc() > 0)
      r = *memo.find(u.src(0).node());
    else if (o == Ops::STACK || GroupOp::Elementwise.contains(o)) {
      bool same = true;
      for (const UOp& s : u.src()) {
        auto a = *memo.find(s.node());
        if (!a) continue;
        if (r && *r != *a) same = false;
        r = a;
      }
      if (!same) r.reset();
    }
    memo.set(u.node(), r);
    result = r;
  }
  return result;
}

}  // namespace mg
